import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineAgent } from '../src/agents/define-agent';
import { buildTranscript, renderTranscript } from '../src/history/history-view';
import { ScriptedModel } from '../src/models/scripted-model';
import { AgentCostUsdAttribute } from '../src/protocol/search-attributes';
import type { UsageReport } from '../src/client/usage-report';
import { runCli } from './support/cli-process';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

// Cost accounting on the real dev server: each call priced by the worker, rolled up across
// continue-as-new, a handoff and sub-agents, AgentCostUsd queryable, cost_limit stops, unpriced calls.

let env: TestEnvironment;
// Names of this file's own: the usage report reads every run of the shared test server.
const suffix = randomUUID().slice(0, 8);
const leadName = `lead_${suffix}`;
const closerName = `closer_${suffix}`;
// $10 per million input tokens, $20 per million output: a call of 1,000 in / 500 out costs $0.02.
const prices = { 'scripted:priced*': { input: 10, output: 20 } };
const call = { inputTokens: 1_000, outputTokens: 500 };
const unpricedModel = new ScriptedModel({
  scripts: { local: { replies: [{ text: 'hello from a self-hosted model', usage: { inputTokens: 30, outputTokens: 5 } }] } },
});

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: createTestTools().tools,
    prices,
    providers: { inhouse: unpricedModel },
    agents: [defineAgent({ config: { name: 'priced-helper', model: 'scripted:priced-helper', max_tokens: 1_000 } })],
    scripts: {
      'priced-delegating': {
        replies: [
          { toolCalls: [{ name: 'echo', args: { text: 'first' } }], usage: call },
          {
            toolCalls: [{ name: 'spawn_subagents', args: { jobs: [{ task: 'help out', agent: 'priced-helper' }] } }],
            usage: { inputTokens: 0, outputTokens: 0 },
          },
          { text: 'parent done' },
        ],
      },
      'priced-helper': { replies: [{ text: 'never asked: the parent had too little left' }] },
      'priced-lead': {
        replies: [
          { toolCalls: [{ name: 'spawn_subagents', args: { jobs: [{ task: 'child job one' }, { task: 'child job two' }] } }], usage: call },
          { toolCalls: [{ name: 'echo', args: { text: 'between' } }], usage: call },
          { toolCalls: [{ name: `transfer_to_${closerName}`, args: {} }], usage: call },
        ],
        variants: [{ taskIncludes: 'child job', replies: [{ text: 'child done', usage: call }] }],
      },
      'priced-closer': { replies: [{ text: 'unused' }, { text: 'unused' }, { text: 'unused' }, { text: 'all done', usage: call }] },
      'priced-before': { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'one' } }], usage: call }, { text: 'never asked' }] },
      'priced-after': {
        replies: [{ toolCalls: [{ name: 'echo', args: { text: 'never runs' } }], usage: { inputTokens: 1_000, outputTokens: 1_000 } }],
      },
      'priced-thread': {
        replies: [
          { toolCalls: [{ name: 'echo', args: { text: 'a' } }], usage: call },
          { toolCalls: [{ name: 'echo', args: { text: 'b' } }], usage: call },
          { text: 'second answer', usage: call },
          { text: 'never asked' },
        ],
      },
      'priced-final': { replies: [{ text: 'paid-for answer', usage: { inputTokens: 1_000, outputTokens: 1_000 } }] },
    },
  });
});

afterAll(async () => {
  await env?.close();
});

describe('cost accounting', () => {
  it('rolls the cost up across sub-agents, continue-as-new and a handoff, and writes AgentCostUsd', async () => {
    const lead = {
      name: leadName,
      model: 'scripted:priced-lead',
      tools: ['echo'],
      handoffs: [closerName],
      allow_parallel_subagents: true,
      max_steps: 6,
    };
    const closer = { name: closerName, model: 'scripted:priced-closer', max_steps: 6 };
    const run = await env.agents.startRun({ config: lead, task: 'Do the work', agents: { [closerName]: closer }, historyEventLimit: 20 });
    const result = await run.result();
    await recordHistory('cost-rollup', run);
    expect(result).toMatchObject({ stopReason: 'completed', output: 'all done', agent: closerName });
    // Lead: 3 calls; its two sub-agents: 1 each; closer: 1. Six calls of $0.02.
    expect(result.usage.costUsd).toBeCloseTo(0.12, 9);
    expect(result.usage.unpricedCalls).toBe(0);
    expect(result.usage.byModel['scripted:priced-lead']).toEqual({ inputTokens: 5_000, outputTokens: 2_500, costUsd: 0.1 });
    expect(result.usage.byModel['scripted:priced-closer']).toEqual({ inputTokens: 1_000, outputTokens: 500, costUsd: 0.02 });

    // The chain had more than the handoff's two executions: the history limit continued it as new.
    // Each execution's AgentCostUsd is the chain's cost so far; the last one's is the whole run's.
    const executions = await eventually(async () => {
      const listed: Array<{ status: string; cost: number | undefined }> = [];
      for await (const execution of env.client.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) {
        listed.push({ status: execution.status.name, cost: execution.typedSearchAttributes.get(AgentCostUsdAttribute) });
      }
      return listed.length === 3 && listed.every((execution) => execution.status !== 'RUNNING') && listed;
    });
    const costs = executions.map((execution) => execution.cost!).sort((left, right) => left - right);
    expect(executions.map((execution) => execution.status).sort()).toEqual(['COMPLETED', 'CONTINUED_AS_NEW', 'CONTINUED_AS_NEW']);
    expect(costs[0]).toBeGreaterThan(0);
    expect(costs[2]).toBeCloseTo(0.12, 9);
    const query = `WorkflowId = '${run.workflowId}' AND ${AgentCostUsdAttribute.name} > 0.11 AND ExecutionStatus = 'Completed'`;
    await eventually(async () => (await env.client.workflow.count(query)).count === 1);
    // Each sub-agent run has its own cost too.
    const children = `WorkflowId STARTS_WITH '${run.workflowId}.' AND ${AgentCostUsdAttribute.name} = 0.02`;
    await eventually(async () => (await env.client.workflow.count(children)).count === 2);
  });

  it('stops with cost_limit before a call whose worst case is more than what is left, without calling the model', async () => {
    const config = { name: 'capped', model: 'scripted:priced-before', tools: ['echo'], max_tokens: 1_000, cost_limit: 0.03 };
    const run = await env.agents.startRun({ config, task: 'Spend carefully' });
    const result = await run.result();
    await recordHistory('cost-limit-before-call', run);
    // Step 1 spent $0.02; step 2 could cost 1,000 output tokens ($0.02) plus its prompt: more than the $0.01 left.
    expect(result.stopReason).toBe('cost_limit');
    expect(result.stopDetail).toMatch(/could cost \$0\.02\d* .*more than the \$0\.01 left/);
    expect(result.usage.costUsd).toBe(0.02);
    expect(result.toolResults.map((toolResult) => toolResult.content)).toEqual(['one']);
    expect(env.modelCalls.filter((made) => made.modelId === 'priced-before')).toHaveLength(1);
    // `history` shows each call's tokens and cost, the refused call, and the run's total.
    const history = renderTranscript(await buildTranscript(env.client, run.workflowId));
    expect(history).toContain('1000 in / 500 out tokens · $0.0200');
    expect(history).toMatch(/over the cost limit: worst case \$0\.02\d* \(\d+ prompt tokens, up to 1000 out\), \$0\.0100 left \(no model call\)/);
    expect(history).toContain('total: 1000 in / 500 out tokens, $0.0200');
  });

  it('stops with cost_limit after a call that passed the limit and asks for tools; the tools do not run', async () => {
    const config = { name: 'capped', model: 'scripted:priced-after', tools: ['echo'], max_tokens: 100, cost_limit: 0.01 };
    const run = await env.agents.startRun({ config, task: 'Spend a lot' });
    const result = await run.result();
    await recordHistory('cost-limit-after-call', run);
    expect(result.stopReason).toBe('cost_limit');
    expect(result.stopDetail).toMatch(/spent \$0\.03, more than the \$0\.01 cost_limit of the run/);
    expect(result.usage.costUsd).toBe(0.03);
    expect(result.toolResults).toEqual([]);
  });

  it('returns a final answer that passed the limit: it is paid for and nothing more is spent', async () => {
    const config = { name: 'capped', model: 'scripted:priced-final', max_tokens: 100, cost_limit: 0.01 };
    const result = await (await env.agents.startRun({ config, task: 'Answer' })).result();
    expect(result).toMatchObject({ stopReason: 'completed', output: 'paid-for answer' });
    expect(result.usage.costUsd).toBe(0.03);
  });

  it("gives a named sub-agent what its parent has left as its cost_limit, whatever its definition's", async () => {
    const config = {
      name: 'delegating',
      model: 'scripted:priced-delegating',
      tools: ['echo'],
      max_tokens: 100,
      // $0.02 spent by the first step leaves $0.015: less than the helper's worst case ($0.02 for 1,000 tokens out).
      cost_limit: 0.035,
      allow_parallel_subagents: true,
      subagents: ['priced-helper'],
    };
    const run = await env.agents.startRun({ config, task: 'Delegate within the limit' });
    const result = await run.result();
    const [outcome] = (JSON.parse(result.toolResults[1]!.content) as { results: Array<{ status: string; error?: string }> }).results;
    expect(outcome).toMatchObject({ status: 'error', error: expect.stringMatching(/^the sub-agent stopped \(cost_limit\)/) });
    expect(env.modelCalls.filter((made) => made.modelId === 'priced-helper')).toHaveLength(0);
    await recordHistory('subagents-named-cost-ceiling', run);
    await recordHistory('subagents-named-cost-ceiling-child', env.agents.getRun(`${run.workflowId}.step-2.sub-1`));
  });

  it('counts a call of a model without a price as unpriced, never at zero; a cost limit on it stops the run', async () => {
    const result = await (await env.agents.startRun({ config: { name: 'local', model: 'inhouse:local' }, task: 'Hi' })).result();
    expect(result.output).toBe('hello from a self-hosted model');
    expect(result.usage).toMatchObject({ costUsd: 0, unpricedCalls: 1 });
    expect(result.usage.byModel['inhouse:local']).toEqual({ inputTokens: 30, outputTokens: 5, unpricedCalls: 1 });

    const limited = await (await env.agents.startRun({ config: { name: 'local', model: 'inhouse:local', cost_limit: 1 }, task: 'Hi' })).result();
    expect(limited.stopReason).toBe('cost_limit');
    expect(limited.stopDetail).toMatch(/the price of inhouse:local is unknown/);

    // An agent's own pricing prices it (and the limit applies).
    const priced = await (
      await env.agents.startRun({
        config: { name: 'local', model: 'inhouse:local', pricing: { 'inhouse:local': { input: 1_000, output: 2_000 } } },
        task: 'Hi',
      })
    ).result();
    expect(priced.usage).toMatchObject({ costUsd: 0.04, unpricedCalls: 0 });
  });

  it('limits a thread per turn (cost_limit) and over all its turns (thread_cost_limit), and keeps its AgentCostUsd after each turn', async () => {
    const config = { name: 'thrifty', model: 'scripted:priced-thread', tools: ['echo'], max_tokens: 100, cost_limit: 0.03, thread_cost_limit: 0.05 };
    const thread = env.agents.thread(`thread-cost-${suffix}`, { config });
    // Turn 1: two tool steps of $0.02 pass the turn's $0.03 (the second asks for a tool: stopped).
    const one = await (await thread.send('first')).result();
    expect(one).toMatchObject({ stopReason: 'cost_limit', usage: { costUsd: 0.04 } });
    expect(one.stopDetail).toMatch(/cost_limit of the turn/);
    // Turn 2 counts from its own start; $0.01 is left of the thread's $0.05, enough for a 100-token answer's worst case.
    const two = await (await thread.send('second')).result();
    expect(two).toMatchObject({ stopReason: 'completed', output: 'second answer', usage: { costUsd: 0.02 } });
    // Turn 3: the thread has spent $0.06: stopped before any model call.
    const three = await (await thread.send('third')).result();
    expect(three.stopReason).toBe('cost_limit');
    expect(three.stopDetail).toMatch(/spent \$0\.06 of the \$0\.05 thread_cost_limit/);
    expect(env.modelCalls.filter((made) => made.modelId === 'priced-thread')).toHaveLength(3);
    await eventually(async () => (await thread.run.workflow.describe()).typedSearchAttributes.get(AgentCostUsdAttribute) === 0.06);
    await thread.close();
    await thread.run.workflow.result();
    await recordHistory('thread-cost-limit', thread.run);
  });

  it('reports closed runs by agent, model and day with `durable-agents usage`, sub-agents inside their parents', async () => {
    const usage = async (...args: string[]) => {
      const result = await runCli(['usage', '--since', '1h', '--json', ...args]);
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout) as UsageReport;
    };
    // The first test's run ended with the closer; its sub-agents (named after the lead) are in its cost.
    const byAgent = await eventually(async () => {
      const report = await usage('--agent', closerName);
      return report.runs === 1 && report;
    }, 30_000);
    expect(byAgent).toMatchObject({ by: 'agent', runs: 1, costUsd: 0.12, rows: [{ key: closerName, runs: 1, costUsd: 0.12 }] });
    expect((await usage('--agent', leadName)).runs).toBe(0);
    const byModel = await usage('--agent', closerName, '--by', 'model');
    expect(byModel.rows).toEqual([
      { key: 'scripted:priced-lead', runs: 1, costUsd: 0.1, unpricedCalls: 0 },
      { key: 'scripted:priced-closer', runs: 1, costUsd: 0.02, unpricedCalls: 0 },
    ]);
    const byDay = await usage('--agent', closerName, '--by', 'day');
    expect(byDay.rows).toEqual([{ key: new Date().toISOString().slice(0, 10), runs: 1, costUsd: 0.12 }]);
    const table = await runCli(['usage', '--since', '1h', '--agent', closerName]);
    expect(table.stdout).toMatch(new RegExp(`${closerName}\\s+1\\s+0\\.1200`));
    const refused = await runCli(['usage', '--by', 'week']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--by: must be one of agent, model, day (got 'week')");
  });
});
