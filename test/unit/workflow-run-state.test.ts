import { describe, expect, it } from '@jest/globals';
import { parseAgentConfig } from '../../src/config/agent-config';
import type { CarriedState } from '../../src/protocol/run-types';
import type { SkillInfo } from '../../src/protocol/skill-types';
import { handoffToolName } from '../../src/workflows/rules/handoff-tools';
import { availableTools, extraToolSpecs } from '../../src/workflows/loop/loop-state';
import { createRunState } from '../../src/workflows/run/run-state';
import type { ResolvedRunInput } from '../../src/protocol/run-types';

/** A run's state as the workflow builds it; these tests never continue it as new. */
function runStateOf(input: ResolvedRunInput) {
  return createRunState(input, () => {
    throw new Error('not continued in these tests');
  });
}

/** The run's state as a run starts, fresh or continued, and the tools it offers the model. */

const skill = (name: string, tools: string[]): SkillInfo => ({
  name,
  description: name,
  usage: '',
  allowedTools: [],
  tools,
  source: 'skills',
  file: `${name}/SKILL.md`,
  contentHash: name,
});

describe('run state', () => {
  it('starts a fresh run from the prior messages and the task, with the task as the kept message', () => {
    const state = runStateOf({
      config: parseAgentConfig({ name: 'a', instructions: 'Be brief.', max_steps: 3 }),
      task: 'Add 2 and 3',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello', toolCalls: [] },
      ],
    });
    expect(state.threads.held('executor').messages.map((message) => message.content)).toEqual(['hi', 'hello', 'Add 2 and 3']);
    expect(state.taskIndex).toBe(2);
    expect(state.stepLimit).toBe(3);
    expect(state).toMatchObject({ phase: 'starting', step: 0, stopReason: null, plan: null, compactions: 0, handoffTo: null });
    expect(state.timeouts).toEqual({ modelStepMs: 300_000, toolMs: 600_000, heartbeatMs: 10_000 });
  });

  it('continues from what the previous run carried: conversation, counters and event numbering', () => {
    const previous = runStateOf({ config: parseAgentConfig({ name: 'a' }), task: 't' });
    previous.events.push({ type: 'run-started', agent: 'a', model: 'm', task: 't' });
    previous.events.push({ type: 'status-changed', phase: 'model', step: 1 });
    const carried: CarriedState = {
      conversation: {
        base: { artifactId: 'conversation-1', count: 2 },
        head: [
          { role: 'user', content: 'summary' },
          { role: 'user', content: 't' },
        ],
        lastAssistantText: '',
      },
      taskIndex: 1,
      step: 6,
      usage: { inputTokens: 10, outputTokens: 5, byModel: {} },
      toolResultCount: 0,
      plan: { text: '1. add', steps: ['add'], model: 'm', plannerSteps: 1 },
      compactions: 2,
      recentEvents: previous.events.tail(200),
      lastEventSeq: previous.events.lastSeq,
      continuations: 1,
      stepBase: 4,
    };
    const state = runStateOf({ config: parseAgentConfig({ name: 'a', max_steps: 5 }), task: 't', carried, timeouts: { toolMs: 1000 } });
    expect(state.taskIndex).toBe(1);
    expect(state.stepLimit).toBe(9);
    expect(state).toMatchObject({ compactions: 2, plan: carried.plan, usage: carried.usage });
    expect(state.timeouts.toolMs).toBe(1000);
    expect(state.events.push({ type: 'status-changed', phase: 'model', step: 7 }).seq).toBe(3);
    // The conversation stays by reference: the run holds only what it adds after the base.
    expect(state.threads.held('executor')).toEqual({ offset: 2, messages: [] });
    state.threads.push('executor', { role: 'user', content: 'more' });
    expect(carried.conversation.head).toHaveLength(2);
  });

  it('adds the parallel sub-agent tool once when the config allows parallel sub-agents', () => {
    const state = runStateOf({ config: parseAgentConfig({ name: 'a', tools: ['echo'], allow_parallel_subagents: true }), task: 't' });
    expect(state.activeTools).toEqual(['echo', 'spawn_subagents']);
    const listed = runStateOf({ config: parseAgentConfig({ name: 'a', tools: ['spawn_subagents'], allow_parallel_subagents: true }), task: 't' });
    expect(listed.activeTools).toEqual(['spawn_subagents']);
  });

  it('leaves spawn_subagents out when allow_parallel_subagents is false, whoever lists it (a stored config, a skill)', () => {
    // Configs in running histories were never checked for this: the flag decides when they replay.
    const stored = {
      ...parseAgentConfig({ name: 'a', tools: ['echo'], skill_sources: ['skills'], memory: true }),
      tools: ['echo', 'spawn_subagents'],
    };
    const state = runStateOf({ config: stored, task: 't' });
    expect(state.activeTools).toEqual(['echo', 'remember', 'recall', 'forget']);
    state.skills.load({ source: 'skills', hash: 'h1', skills: [skill('fan-out', ['spawn_subagents', 'add'])], errors: [] }, 1);
    expect(availableTools(state)).toEqual(['echo', 'remember', 'recall', 'forget', 'add']);
    const allowed = runStateOf({ config: { ...stored, allow_parallel_subagents: true }, task: 't' });
    allowed.skills.load({ source: 'skills', hash: 'h1', skills: [skill('fan-out', ['spawn_subagents', 'add'])], errors: [] }, 1);
    expect(availableTools(allowed)).toEqual(['echo', 'spawn_subagents', 'remember', 'recall', 'forget', 'add']);
  });

  it("offers the run's own tools, then those its skills bring, each once", () => {
    const state = runStateOf({ config: parseAgentConfig({ name: 'a', tools: ['echo'], skill_sources: ['skills'] }), task: 't' });
    state.skills.load({ source: 'skills', hash: 'h1', skills: [skill('math', ['add', 'echo']), skill('web', ['fetch', 'add'])], errors: [] }, 1);
    expect(availableTools(state)).toEqual(['echo', 'add', 'fetch']);
  });

  it('gives the model the handoff tools first, then the MCP tools found at the start', () => {
    const agents = { billing: parseAgentConfig({ name: 'billing', instructions: 'Handles invoices.' }) };
    const state = runStateOf({ config: parseAgentConfig({ name: 'a', handoffs: ['billing', 'unknown'] }), task: 't', agents });
    const spec = { name: 'docs__search', description: 'Search the docs', parameters: { type: 'object' } };
    state.mcpTools.set(spec.name, { server: { name: 'docs', command: 'docs-mcp', args: [], env_from_worker: [] }, mcpName: 'search', spec });
    expect(extraToolSpecs(state).map((tool) => tool.name)).toEqual([handoffToolName('billing'), 'docs__search']);
  });
});
