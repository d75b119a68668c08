import { describe, expect, it } from '@jest/globals';
import { ConversationThreads } from '../../src/workflows/loop/conversation-threads';
import { parseAgentConfig } from '../../src/config/agent-config';
import type { Message, ToolCall } from '../../src/protocol/messages';
import type { CarriedState, ModelStepResult } from '../../src/protocol/run-types';
import { AgentNameAttribute, AgentSkillSourcesAttribute, AgentStatusAttribute } from '../../src/protocol/search-attributes';
import { emptyUsage } from '../../src/workflows/rules/usage-totals';
import { handoffToolName } from '../../src/workflows/rules/handoff-tools';
import {
  budgetVerdict,
  claimHandoff,
  compactionPoint,
  firstStep,
  handoffSearchAttributes,
  maxStepsDetail,
  shouldContinueAsNew,
  DEFAULT_CONTINUE_AS_NEW_POINT,
  toolRoute,
} from '../../src/workflows/rules/loop-decisions';
import { nextMove, stepLimitOf } from '../../src/protocol/step-moves';

/** The agent loop's decisions, without a server: the workflow modules only carry them out. */

const call = (name: string, id = `call-${name}`): ToolCall => ({ id, name, args: {} });

function reply(content: string, toolCalls: ToolCall[] = [], extra: Partial<ModelStepResult> = {}): ModelStepResult {
  return { message: { role: 'assistant', content, toolCalls }, usage: { inputTokens: 1, outputTokens: 1 }, model: 'scripted:test', ...extra };
}

function carried(fields: Partial<CarriedState>): CarriedState {
  const conversation = { base: { artifactId: 'conversation-1', count: 1 }, head: [], lastAssistantText: '' };
  return {
    conversation,
    taskIndex: 0,
    step: 0,
    usage: emptyUsage(),
    toolResultCount: 0,
    plan: null,
    compactions: 0,
    recentEvents: [],
    lastEventSeq: 0,
    continuations: 1,
    ...fields,
  };
}

/** A conversation: the task, then `turns` assistant turns, each a tool call and its result. */
function conversation(turns: number): Message[] {
  const messages: Message[] = [{ role: 'user', content: 'task' }];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({ role: 'assistant', content: '', toolCalls: [call('echo', `c${turn}`)] });
    messages.push({ role: 'tool', toolCallId: `c${turn}`, toolName: 'echo', content: `r${turn}`, isError: false });
  }
  return messages;
}

describe('what follows a model reply', () => {
  it('runs the tool calls of a reply that has any, even when it also failed the output schema', () => {
    const calls = [call('echo'), call('add')];
    expect(nextMove(reply('thinking', calls, { outputError: 'not JSON' }), 1, 5)).toEqual({ kind: 'run-tools', calls });
  });

  it('finishes with the text of a text-only answer, and its structured output only when there is one', () => {
    expect(nextMove(reply('Paris'), 2, 5)).toEqual({ kind: 'finish', stopReason: 'completed', output: 'Paris', extra: {} });
    expect(nextMove(reply('{"city":"Paris"}', [], { structuredOutput: { city: 'Paris' } }), 2, 5)).toEqual({
      kind: 'finish',
      stopReason: 'completed',
      output: '{"city":"Paris"}',
      extra: { structuredOutput: { city: 'Paris' } },
    });
  });

  it('asks the model to correct an answer that failed the output schema while steps remain', () => {
    const move = nextMove(reply('Paris', [], { outputError: 'must be object' }), 4, 5);
    expect(move.kind).toBe('correct-output');
    if (move.kind !== 'correct-output') return;
    expect(move.outputRejected).toBe('must be object');
    expect(move.correction.role).toBe('user');
    expect(move.correction.content).toContain('must be object');
  });

  it('stops with output_invalid and the schema error when the last step fails the schema', () => {
    expect(nextMove(reply('Paris', [], { outputError: 'must be object' }), 5, 5)).toEqual({
      kind: 'finish',
      stopReason: 'output_invalid',
      output: 'Paris',
      extra: { stopDetail: 'must be object' },
      outputRejected: 'must be object',
    });
  });
});

describe('steps of a run', () => {
  const config = parseAgentConfig({ name: 'a', max_steps: 4 });

  it('runs steps 1 to max_steps on a fresh run', () => {
    expect(firstStep(undefined)).toBe(1);
    expect(stepLimitOf(config, undefined)).toBe(4);
  });

  it('goes on after the last step of the run it continues, within the same limit', () => {
    const state = carried({ step: 2 });
    expect(firstStep(state)).toBe(3);
    expect(stepLimitOf(config, state)).toBe(4);
  });

  it('gives an agent that took over by handoff its own max_steps, counted from the handoff', () => {
    const state = carried({ step: 3, stepBase: 3 });
    expect(firstStep(state)).toBe(4);
    expect(stepLimitOf(config, state)).toBe(7);
  });

  it('says how many steps a run that ran out of them was allowed', () => {
    expect(maxStepsDetail(config)).toBe('Stopped after max_steps (4) model steps without a final answer');
  });
});

/** A conversation as a fresh run holds it (no base). */
function threadsOf(messages: Message[]): ConversationThreads {
  return new ConversationThreads('system', messages);
}

describe('budget: compaction or stop', () => {
  const budget = { mode: 'limit' as const, limitPercent: 50, contextWindow: 1000 };

  it('does not compact a reply within the budget', () => {
    expect(compactionPoint(reply('ok'), threadsOf(conversation(5)), 0)).toBeNull();
  });

  it('compacts an over-budget reply, keeping the task and the last two turns whole', () => {
    const messages = conversation(4);
    const keepFrom = compactionPoint(reply('', [], { overBudget: { promptTokens: 900, limitTokens: 500 } }), threadsOf(messages), 0);
    expect(keepFrom).toBe(5);
    expect(messages[keepFrom!]).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'c3' }] });
  });

  it('has nothing to compact when only the task and the recent turns are there (the run stops instead)', () => {
    expect(compactionPoint(reply('', [], { overBudget: { promptTokens: 900, limitTokens: 500 } }), threadsOf(conversation(2)), 0)).toBeNull();
  });

  it('stops a reply still over the budget, with the numbers in the detail', () => {
    const verdict = budgetVerdict(reply('', [], { overBudget: { promptTokens: 900, limitTokens: 500 }, promptTokens: 900 }), budget, 'limit:50');
    expect(verdict).toEqual({
      kind: 'stop',
      promptTokens: 900,
      limitTokens: 500,
      detail:
        'The prompt needs 900 tokens, above the budget of 500 (limit:50 of a 1000-token window), even after compaction; no further model call was made.',
    });
  });

  it('reports the prompt share of the window to one decimal when within the budget', () => {
    expect(budgetVerdict(reply('ok', [], { promptTokens: 123 }), { ...budget, contextWindow: 1024 }, 'per-message')).toEqual({
      kind: 'advisory',
      promptTokens: 123,
      contextWindow: 1024,
      percent: 12,
    });
    expect(budgetVerdict(reply('ok', [], { promptTokens: 12345 }), { ...budget, contextWindow: 128000 }, 'per-message')).toMatchObject({
      percent: 9.6,
    });
  });

  it('says the stop came without compaction when nothing could be compacted', () => {
    const verdict = budgetVerdict(reply('', [], { overBudget: { promptTokens: 900, limitTokens: 500 } }), budget, 'limit:50', false);
    expect(verdict).toMatchObject({ kind: 'stop', detail: expect.stringContaining('and nothing could be compacted') });
    expect(verdict.kind === 'stop' && verdict.detail).not.toContain('even after compaction');
  });

  it('says nothing when budget awareness is off or the step counted no prompt tokens', () => {
    expect(budgetVerdict(reply('ok', [], { promptTokens: 123 }), null, null)).toEqual({ kind: 'none' });
    expect(budgetVerdict(reply('ok'), budget, 'limit:50')).toEqual({ kind: 'none' });
  });
});

describe('handoffs within a step', () => {
  it('lets the first target of a step win and accepts it again', () => {
    expect(claimHandoff(null, 'billing')).toEqual({ handoffTo: 'billing' });
    expect(claimHandoff('billing', 'billing')).toEqual({ handoffTo: 'billing' });
  });

  it('refuses a second target in the same step, naming the first', () => {
    expect(claimHandoff('billing', 'support')).toEqual({ refusal: "Error: already handing off to 'billing' in this step", errorCode: 'ToolFailed' });
  });

  it("refuses the planner's handoff calls, whatever the executor's step holds: the planner cannot move the run", () => {
    for (const current of [null, 'billing']) {
      const claim = claimHandoff(current, 'billing', 'planner');
      expect(claim).toEqual({ refusal: expect.stringContaining('the planner cannot hand off'), errorCode: 'HandoffRefused' });
      expect('refusal' in claim && claim.refusal).toContain("the executor can call 'transfer_to_billing'");
    }
    expect(claimHandoff(null, 'billing', 'executor')).toEqual({ handoffTo: 'billing' });
  });

  it('gives the target run its name, status and skill sources', () => {
    const target = { name: 'billing', skill_sources: ['./skills/billing'] };
    expect(handoffSearchAttributes(target)).toEqual([
      { key: AgentNameAttribute, value: 'billing' },
      { key: AgentStatusAttribute, value: 'running' },
      { key: AgentSkillSourcesAttribute, value: ['./skills/billing'] },
    ]);
    expect(handoffSearchAttributes({ name: 'plain', skill_sources: [] })).toHaveLength(2);
  });
});

describe('where a tool call goes', () => {
  const config = parseAgentConfig({ name: 'a', tools: ['echo', 'deploy'], hitl_tools: ['deploy'], handoffs: ['billing'] });
  const available = ['echo', 'deploy', 'spawn_self', 'docs__search'];
  const mcpTools = new Set(['docs__search']);

  it('treats a transfer tool of the agent as a handoff, though it is not among the tools', () => {
    expect(toolRoute(handoffToolName('billing'), config, available, mcpTools)).toEqual({ kind: 'handoff', target: 'billing' });
  });

  it('refuses a tool the run does not have, listing the ones it has', () => {
    expect(toolRoute('rm', config, available, mcpTools)).toEqual({ kind: 'unknown', available: 'echo, deploy, spawn_self, docs__search' });
    expect(toolRoute('rm', config, [], mcpTools)).toEqual({ kind: 'unknown', available: 'none' });
    expect(toolRoute(handoffToolName('support'), config, available, mcpTools).kind).toBe('unknown');
  });

  it('sends sub-agent, MCP and other tools to their runners, gated when the config says so', () => {
    expect(toolRoute('spawn_self', config, available, mcpTools)).toEqual({ kind: 'subagents', gated: false });
    expect(toolRoute('docs__search', config, available, mcpTools)).toEqual({ kind: 'mcp', gated: false });
    expect(toolRoute('echo', config, available, mcpTools)).toEqual({ kind: 'activity', gated: false });
    expect(toolRoute('deploy', config, available, mcpTools)).toEqual({ kind: 'activity', gated: true });
  });
});

describe('continue-as-new', () => {
  it('never continues before the first step, whatever the history', () => {
    expect(
      shouldContinueAsNew(
        1,
        { historyLength: 10_000, historySize: 9e9, continueAsNewSuggested: true },
        { historyEventLimit: 10, historySizeLimitBytes: 1 },
      ),
    ).toBe(false);
  });

  it('continues at the event limit the input sets, whatever Temporal suggests', () => {
    expect(shouldContinueAsNew(3, { historyLength: 39, historySize: 1_000, continueAsNewSuggested: true }, { historyEventLimit: 40 })).toBe(false);
    expect(shouldContinueAsNew(3, { historyLength: 40, historySize: 1_000, continueAsNewSuggested: false }, { historyEventLimit: 40 })).toBe(true);
  });

  it('continues at the byte limit the input sets, before any event limit or suggestion', () => {
    expect(
      shouldContinueAsNew(
        2,
        { historyLength: 12, historySize: 2_000_000, continueAsNewSuggested: false },
        { historyEventLimit: 10_000, historySizeLimitBytes: 2_000_000 },
      ),
    ).toBe(true);
    expect(
      shouldContinueAsNew(2, { historyLength: 12, historySize: 1_999_999, continueAsNewSuggested: false }, { historySizeLimitBytes: 2_000_000 }),
    ).toBe(false);
  });

  it('follows Temporal’s suggestion when the input sets no limit, before the default point', () => {
    expect(shouldContinueAsNew(2, { historyLength: 1_500, historySize: 1_000, continueAsNewSuggested: false }, {})).toBe(false);
    expect(shouldContinueAsNew(2, { historyLength: 12, historySize: 1_000, continueAsNewSuggested: true }, {})).toBe(true);
  });

  it('continues at the default point (2,000 events or 2 MiB) for what the input leaves unset', () => {
    const { events, bytes } = DEFAULT_CONTINUE_AS_NEW_POINT;
    expect(shouldContinueAsNew(2, { historyLength: events - 1, historySize: bytes - 1, continueAsNewSuggested: false }, {})).toBe(false);
    expect(shouldContinueAsNew(2, { historyLength: events, historySize: 1_000, continueAsNewSuggested: false }, {})).toBe(true);
    expect(shouldContinueAsNew(2, { historyLength: 12, historySize: bytes, continueAsNewSuggested: false }, {})).toBe(true);
    // A limit the input sets replaces the default of its own kind only.
    expect(
      shouldContinueAsNew(2, { historyLength: events * 5, historySize: 1_000, continueAsNewSuggested: false }, { historyEventLimit: 100_000 }),
    ).toBe(false);
    expect(shouldContinueAsNew(2, { historyLength: 12, historySize: bytes, continueAsNewSuggested: false }, { historyEventLimit: 100_000 })).toBe(
      true,
    );
    expect(
      shouldContinueAsNew(2, { historyLength: events, historySize: bytes * 5, continueAsNewSuggested: false }, { historySizeLimitBytes: bytes * 10 }),
    ).toBe(true);
  });
});
