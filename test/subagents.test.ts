import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowExecutionStatusName } from '@temporalio/client';
import { defineAgent } from '../src/agents/define-agent';
import type { RunHandle } from '../src/client/agent-client';
import { buildTranscript, renderTranscript } from '../src/history/history-view';
import { boundedWorkflowId, MAX_WORKFLOW_ID_LENGTH } from '../src/workflows/rules/workflow-ids';
import { AgentNameAttribute, AgentSkillSourcesAttribute, AgentVersionAttribute } from '../src/protocol/search-attributes';
import { WireName } from '../src/protocol/wire-names';
import { parseAgentConfig } from '../src/config/agent-config';
import type { AgentRunResult } from '../src/protocol/run-types';
import { recordHistory } from './support/history-recorder';
import { tempSkillRoot } from './support/skill-files';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const testTools = createTestTools();
let env: TestEnvironment;

/** An agent the test worker defines, which a parent delegates to by name (`subagents`). */
const researcher = defineAgent({ config: { name: 'researcher', model: 'scripted:researcher', instructions: 'You research sums.', tools: ['add'] } });
const delegating = { name: 'boss', model: 'scripted:delegating', tools: ['echo'], allow_parallel_subagents: true, subagents: ['researcher'] };

const cityAnswer = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const jobs = [
  { task: 'job-ok-1 say hi', tool_names: ['echo'] },
  { task: 'job-ok-2 add', tool_names: ['add'] },
  { task: 'job-structured city', output_schema: cityAnswer },
  { task: 'job-schema-fail city', output_schema: cityAnswer },
  { task: 'job-model-error', additional_context: 'the model will refuse' },
  { task: 'job-ok-3 plain', system_prompt: 'Be terse.' },
  { task: 'job-ok-4 plain' },
];

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: testTools.tools,
    agents: [researcher],
    scripts: {
      delegating: {
        replies: [
          {
            toolCalls: [
              { name: 'spawn_subagents', args: { jobs: [{ task: 'job-named add 20 and 22', agent: 'researcher' }, { task: 'job-copy plain' }] } },
            ],
          },
          { text: 'delegated' },
        ],
        variants: [{ taskIncludes: 'job-copy', replies: [{ text: 'a copy answered', expect: { toolsInclude: ['echo'], toolsExclude: ['add'] } }] }],
      },
      researcher: {
        replies: [
          {
            toolCalls: [{ name: 'add', args: { a: 20, b: 22 } }],
            expect: { systemIncludes: 'You research sums.', toolsInclude: ['add'], toolsExclude: ['echo', 'spawn_subagents'] },
          },
          { text: 'the sum is {{tool:add}}' },
        ],
      },
      delegatingElsewhere: {
        replies: [
          {
            toolCalls: [
              { name: 'spawn_subagents', args: { jobs: [{ task: 'write it up', agent: 'writer' }] } },
              { name: 'spawn_subagents', args: { jobs: [{ task: 'sum it', agent: 'researcher', tool_names: ['echo'] }] } },
            ],
          },
          { text: 'refused' },
        ],
      },
      parent: {
        replies: [{ toolCalls: [{ name: 'spawn_subagents', args: { jobs } }] }, { text: 'aggregated' }],
        variants: [
          {
            taskIncludes: 'job-ok-1',
            replies: [
              {
                toolCalls: [{ name: 'echo', args: { text: 'hi' } }],
                expect: { toolsInclude: ['echo'], toolsExclude: ['add', 'spawn_subagents', 'spawn_self'] },
              },
              { text: 'said {{tool:echo}}' },
            ],
          },
          { taskIncludes: 'job-ok-2', replies: [{ toolCalls: [{ name: 'add', args: { a: 20, b: 22 } }] }, { text: '{{tool:add}}' }] },
          { taskIncludes: 'job-structured', replies: [{ text: '{"city": "Lisbon"}' }] },
          { taskIncludes: 'job-schema-fail', replies: [{ text: '{"town": 1}' }, { text: 'still no city' }] },
          { taskIncludes: 'job-model-error', replies: [{ error: { code: 'ModelAuthFailed', message: 'no key for the child' } }] },
          { taskIncludes: 'job-ok-', replies: [{ text: 'plain answer', expect: { systemIncludes: 'Parent instructions.' } }] },
        ],
      },
      tooMany: {
        replies: [
          { toolCalls: [{ name: 'spawn_subagents', args: { jobs: Array.from({ length: 8 }, (_, index) => ({ task: `t${index}` })) } }] },
          { text: 'refused' },
        ],
      },
      notSubset: {
        replies: [
          {
            toolCalls: [
              { name: 'spawn_self', args: { task: 'a', tool_names: ['echo', 'add'] } },
              { name: 'spawn_self', args: { task: 'b', tool_names: ['explode_everything'] } },
              { name: 'spawn_self', args: { task: 'c', tool_names: ['spawn_self'] } },
            ],
          },
          { text: 'refused' },
        ],
      },
      single: {
        replies: [
          { toolCalls: [{ name: 'spawn_self', args: { task: 'child-single', tool_names: ['add'] } }] },
          { text: 'child said {{tool:spawn_self}}' },
        ],
        variants: [
          { taskIncludes: 'child-single', replies: [{ text: 'forty-two', expect: { toolsInclude: ['add'], toolsExclude: ['echo', 'spawn_self'] } }] },
        ],
      },
      blocked: {
        replies: [{ toolCalls: [{ name: 'spawn_self', args: { task: 'child-blocked' } }] }, { text: 'never' }],
        variants: [{ taskIncludes: 'child-blocked', replies: [{ toolCalls: [{ name: 'gate', args: {} }] }, { text: 'never' }] }],
      },
      plainTools: { replies: [{ text: 'no sub-agents here' }] },
      // A stored config that lists spawn_subagents with the flag off: the model is not offered it, and a call is refused.
      flagOff: {
        replies: [
          {
            toolCalls: [{ name: 'spawn_subagents', args: { jobs: [{ task: 'child-flag-off' }] } }],
            expect: { toolsInclude: ['echo'], toolsExclude: ['spawn_subagents'] },
          },
          { text: 'no children' },
        ],
      },
      singleInjected: {
        replies: [
          { toolCalls: [{ name: 'spawn_self', args: { task: 'child-injected', ui_request_id: 'req-2' } }] },
          { text: 'child said {{tool:spawn_self}}' },
        ],
        variants: [{ taskIncludes: 'child-injected', replies: [{ text: 'child done', expect: { lastMessageIncludes: 'child-injected' } }] }],
      },
      guarded: {
        replies: [
          {
            toolCalls: [
              { name: 'spawn_self', args: { task: 'child-guarded-asks', tool_names: ['transfer_funds'] } },
              { name: 'spawn_self', args: { task: 'child-guarded-all' } },
            ],
          },
          { text: 'done' },
        ],
        variants: [
          {
            taskIncludes: 'child-guarded-all',
            replies: [{ text: 'no money tools', expect: { toolsInclude: ['echo', 'add'], toolsExclude: ['transfer_funds'] } }],
          },
        ],
      },
    },
  });
});

afterAll(async () => {
  await env?.close();
});

function results(content: string | undefined): Array<Record<string, unknown>> {
  return (JSON.parse(content ?? '{}') as { results: Array<Record<string, unknown>> }).results;
}

describe('sub-agents', () => {
  it('runs 7 parallel children and aggregates per-job success and error entries', async () => {
    const run = await env.agents.startRun({
      config: {
        name: 'boss',
        model: 'scripted:parent',
        instructions: 'Parent instructions.',
        tools: ['echo', 'add'],
        allow_parallel_subagents: true,
        max_parallel_subagents: 7,
        max_steps: 2,
      },
      task: 'Fan out',
    });
    const result = await run.result();
    expect(result.output).toBe('aggregated');
    // The run result keeps 1,000 characters of a tool result; the event has all of it.
    expect(result.toolResults[0]?.contentTruncated).toBe(true);
    let full: string | undefined;
    for await (const event of run.events()) if (event.type === 'tool-completed') full = event.content;
    const entries = results(full);
    expect(entries.map((entry) => [entry.job, entry.status])).toEqual([
      [0, 'success'],
      [1, 'success'],
      [2, 'success'],
      [3, 'error'],
      [4, 'error'],
      [5, 'success'],
      [6, 'success'],
    ]);
    expect(entries[0]).toMatchObject({ output: 'said hi', workflow_id: `${run.workflowId}.step-1.sub-1` });
    expect(entries[1]).toMatchObject({ output: '42' });
    expect(entries[2]).toMatchObject({ structured_output: { city: 'Lisbon' } });
    expect(entries[3]?.error).toContain('output_invalid');
    expect(entries[4]?.error).toContain('no key for the child');
    // The parent is unchanged by its children's overrides.
    expect((await run.status()).activeTools).toEqual(['echo', 'add', 'spawn_subagents']);
    const child = await env.client.workflow.getHandle(`${run.workflowId}.step-1.sub-1`).describe();
    expect(child.parentExecution?.workflowId).toBe(run.workflowId);
    await recordHistory('subagents-parallel', run);
  });

  it('refuses more jobs than max_parallel_subagents, naming the limit', async () => {
    const run = await env.agents.startRun({
      config: { name: 'boss', model: 'scripted:tooMany', tools: ['echo'], allow_parallel_subagents: true, max_parallel_subagents: 7 },
      task: 'Too many',
    });
    const result = await run.result();
    expect(result.toolResults[0]).toMatchObject({ isError: true, errorCode: 'SubagentRefused' });
    expect(result.toolResults[0]?.content).toContain('8 jobs requested, but max_parallel_subagents is 7');
  });

  it('requires tool_names to be a strict subset of the child-safe tools', async () => {
    const run = await env.agents.startRun({
      config: { name: 'boss', model: 'scripted:notSubset', tools: ['echo', 'add', 'spawn_self'] },
      task: 'Subsets',
    });
    const result = await run.result();
    expect(result.toolResults.map((toolResult) => toolResult.errorCode)).toEqual(['SubagentRefused', 'SubagentRefused', 'SubagentRefused']);
    expect(result.toolResults[0]?.content).toContain('must be a strict subset of the child-safe tools (echo, add)');
    expect(result.toolResults[1]?.content).toContain('names tools a sub-agent may not have: explode_everything');
    expect(result.toolResults[2]?.content).toContain('names tools a sub-agent may not have: spawn_self');
  });

  it('never gives a child a tool the worker declares not child-safe', async () => {
    const config = { name: 'boss', model: 'scripted:guarded', tools: ['echo', 'add', 'transfer_funds', 'spawn_self'] };
    const run = await env.agents.startRun({ config, task: 'Guarded' });
    const result = await run.result();
    expect(result.toolResults[0]).toMatchObject({ isError: true, errorCode: 'SubagentRefused' });
    expect(result.toolResults[0]?.content).toContain('names tools a sub-agent may not have: transfer_funds (child-safe tools: echo, add)');
    expect(results(result.toolResults[1]?.content)).toEqual([expect.objectContaining({ status: 'success', output: 'no money tools' })]);
    await recordHistory('subagents-child-unsafe', run);
  });

  it('runs one child with spawn_self and a narrowed tool set', async () => {
    const run = await env.agents.startRun({
      config: { name: 'boss', model: 'scripted:single', tools: ['echo', 'add', 'spawn_self'] },
      task: 'Delegate',
    });
    const result = await run.result();
    expect(results(result.toolResults[0]?.content)).toEqual([expect.objectContaining({ status: 'success', output: 'forty-two' })]);
    await recordHistory('subagents-single', run);
  });

  it('shortens a child workflow id past 255 characters under a long parent id (bounded-child-ids)', async () => {
    const workflowId = `boss-${'x'.repeat(245)}`;
    const run = await env.agents.startRun({
      config: { name: 'boss', model: 'scripted:single', tools: ['echo', 'add', 'spawn_self'] },
      task: 'Delegate',
      workflowId,
    });
    const result = await run.result();
    expect(results(result.toolResults[0]?.content)).toEqual([expect.objectContaining({ status: 'success', output: 'forty-two' })]);
    const history = await run.workflow.fetchHistory();
    const childId = history.events?.find((event) => event.startChildWorkflowExecutionInitiatedEventAttributes)
      ?.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
    expect(childId).toBe(boundedWorkflowId(`${workflowId}.step-1.sub-1`));
    expect(childId).toHaveLength(MAX_WORKFLOW_ID_LENGTH);
    await recordHistory('subagents-long-workflow-id', run);
  });

  it('starts a sub-agent of a run with skill sources with them as AgentSkillSources, so the skills watcher finds it (subagent-skill-sources)', async () => {
    const folder = tempSkillRoot();
    try {
      const run = await env.agents.startRun({
        config: { name: 'boss', model: 'scripted:single', tools: ['echo', 'add', 'spawn_self'], skill_sources: [folder] },
        task: 'Delegate',
      });
      const result = await run.result();
      expect(results(result.toolResults[0]?.content)).toEqual([expect.objectContaining({ status: 'success', output: 'forty-two' })]);
      const child = await env.client.workflow.getHandle(`${run.workflowId}.step-1.sub-1`).describe();
      expect(child.typedSearchAttributes.get(AgentSkillSourcesAttribute)).toEqual([folder]);
      await recordHistory('subagent-skill-sources', run);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('offers no parallel sub-agent tool when allow_parallel_subagents is false', async () => {
    const before = env.modelCalls.length;
    await (await env.agents.startRun({ config: { name: 'boss', model: 'scripted:plainTools', tools: ['echo'] }, task: 'Hi' })).result();
    expect(env.modelCalls[before]?.request.tools.map((tool) => tool.name)).toEqual(['echo']);
  });

  it('refuses a config that lists spawn_subagents while allow_parallel_subagents is false, naming both fields', async () => {
    await expect(
      env.agents.startRun({ config: { name: 'boss', model: 'scripted:plainTools', tools: ['echo', 'spawn_subagents'] }, task: 'Hi' }),
    ).rejects.toMatchObject({
      code: 'AgentConfigError',
      message: expect.stringContaining("tools.1: lists 'spawn_subagents' but allow_parallel_subagents is false on agent 'boss'"),
    });
  });

  it('neither offers nor runs spawn_subagents with the flag off, even when a started run lists it in tools', async () => {
    // As a run started before the config check existed (its input is in a running history): started without the client.
    const config = { ...parseAgentConfig({ name: 'boss', model: 'scripted:flagOff', tools: ['echo'] }), tools: ['echo', 'spawn_subagents'] };
    const workflowId = `flag-off-${randomUUID()}`;
    const handle = await env.client.workflow.start(WireName.agentRunWorkflow, {
      workflowId,
      taskQueue: env.taskQueue,
      args: [{ config, task: 'Hi' }],
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.output).toBe('no children');
    expect(result.toolResults[0]).toMatchObject({ toolName: 'spawn_subagents', isError: true, errorCode: 'ToolNotFoundError' });
    expect(result.toolResults[0]?.content).toContain("unknown tool 'spawn_subagents'");
    const run = env.agents.getRun(workflowId);
    expect((await run.status()).activeTools).toEqual(['echo']);
    await expect(env.client.workflow.getHandle(`${workflowId}.step-1.sub-1`).describe()).rejects.toThrow();
    await recordHistory('subagents-flag-off', run);
  });

  it("keeps a sub-agent call's injected args out of its job and in the result's metadata", async () => {
    const run = await env.agents.startRun({
      config: {
        name: 'boss',
        model: 'scripted:singleInjected',
        tools: ['echo', 'spawn_self'],
        injected_tool_args: { ui_request_id: 'Correlation id' },
      },
      task: 'One child',
    });
    const result = await run.result();
    expect(result.output).toContain('child done');
    expect(result.toolResults[0]).toMatchObject({ toolName: 'spawn_self', isError: false });
    expect(result.toolResults[0]?.metadata.injected_args).toEqual({ ui_request_id: 'req-2' });
    expect(results(result.toolResults[0]?.content)).toEqual([expect.objectContaining({ status: 'success', output: 'child done' })]);
  });

  it('cancels its children when the parent is cancelled', async () => {
    testTools.gateControl.reset();
    const run: RunHandle = await env.agents.startRun({
      config: { name: 'boss', model: 'scripted:blocked', tools: ['gate', 'spawn_self'] },
      task: 'Block',
    });
    await testTools.gateControl.reached();
    await run.workflow.cancel();
    const childStatus = async (): Promise<WorkflowExecutionStatusName> =>
      (await env.client.workflow.getHandle(`${run.workflowId}.step-1.sub-1`).describe()).status.name;
    await eventually(async () => ((await childStatus()) === 'CANCELLED' ? true : undefined), 20_000);
    testTools.gateControl.open();
    await expect(run.result()).rejects.toThrow();
  });

  it('runs an agent the workers define as a sub-agent by name: the child resolves and records its version, its outcome returns to the parent', async () => {
    const before = env.modelCalls.length;
    const run = await env.agents.startRun({ config: delegating, task: 'Delegate the sum' });
    const result = await run.result();
    expect(result.output).toBe('delegated');
    // The model is offered the agents it may name, as an enum of the job's `agent`.
    const spawnSpec = env.modelCalls[before]?.request.tools.find((tool) => tool.name === 'spawn_subagents');
    expect(JSON.stringify(spawnSpec?.parameters)).toContain('"agent":{"description"');
    expect(JSON.stringify(spawnSpec?.parameters)).toContain('"enum":["researcher"]');
    expect(results(result.toolResults[0]?.content)).toEqual([
      {
        job: 0,
        task: 'job-named add 20 and 22',
        status: 'success',
        output: 'the sum is 42',
        steps: 2,
        workflow_id: `${run.workflowId}.step-1.sub-1`,
      },
      { job: 1, task: 'job-copy plain', status: 'success', output: 'a copy answered', steps: 1, workflow_id: `${run.workflowId}.step-1.sub-2` },
    ]);
    const child = env.agents.getRun(`${run.workflowId}.step-1.sub-1`);
    expect((await child.status()).agentVersion).toEqual({ name: 'researcher', version: researcher.version, label: null });
    expect(renderTranscript(await buildTranscript(env.client, child.workflowId))).toContain(
      `agent researcher@${researcher.version}, model scripted:researcher`,
    );
    const described = await eventually(async () => {
      const description = await child.workflow.describe();
      return description.typedSearchAttributes.get(AgentVersionAttribute) === `researcher@${researcher.version}` && description;
    });
    expect(described.typedSearchAttributes.get(AgentNameAttribute)).toBe('researcher');
    expect(described.parentExecution?.workflowId).toBe(run.workflowId);
    await recordHistory('subagents-named', run);
    await recordHistory('subagents-named-child', child);
  });

  it('refuses a job naming an agent outside subagents, or naming one with tool_names, with results the model sees', async () => {
    const run = await env.agents.startRun({ config: { ...delegating, model: 'scripted:delegatingElsewhere' }, task: 'Delegate elsewhere' });
    const result = await run.result();
    expect(result.output).toBe('refused');
    expect(result.toolResults.map((toolResult) => toolResult.errorCode)).toEqual(['SubagentRefused', 'SubagentRefused']);
    expect(result.toolResults[0]?.content).toContain("'writer' is not an agent this agent may delegate to (its subagents: researcher)");
    expect(result.toolResults[1]?.content).toContain("'researcher' cannot go with tool_names");
    await expect(env.client.workflow.getHandle(`${run.workflowId}.step-1.sub-1`).describe()).rejects.toThrow();
    await recordHistory('subagents-named-refused', run);
  });
});
