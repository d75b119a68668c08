import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify as stringifyYaml } from 'yaml';
import { buildTranscript, renderTranscript } from '../src/history/history-view';
import type { RunEvent } from '../src/protocol/run-events';
import { AgentNameAttribute, AgentSkillSourcesAttribute, AgentStatusAttribute } from '../src/protocol/search-attributes';
import { runCli } from './support/cli-process';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

let env: TestEnvironment;
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'handoffs-'));
  env = await createTestEnvironment({
    tools: createTestTools().tools,
    scripts: {
      triage: {
        replies: [
          { toolCalls: [{ name: 'echo', args: { text: 'ticket 7' } }] },
          {
            text: 'This is for billing.',
            toolCalls: [{ name: 'transfer_to_billing', args: { reason: 'a refund' } }],
            expect: { toolsInclude: ['transfer_to_billing', 'echo'] },
          },
        ],
      },
      // The planner calls the handoff tool; the executor then works two steps as triage.
      plannedTriage: {
        planner: [
          { toolCalls: [{ name: 'transfer_to_billing', args: { reason: 'a refund' } }], expect: { toolsInclude: ['transfer_to_billing', 'echo'] } },
          { text: '1. Look up the ticket\n2. Answer', expect: { lastMessageIncludes: 'the planner cannot hand off' } },
        ],
        replies: [{ toolCalls: [{ name: 'echo', args: { text: 'ticket 8' } }] }, { text: 'Triage answered: {{tool:echo}}' }],
      },
      injectedTriage: {
        replies: [
          { toolCalls: [{ name: 'echo', args: { text: 'ticket 9' } }] },
          { toolCalls: [{ name: 'transfer_to_billing', args: { reason: 'a refund', ui_request_id: 'req-5' } }] },
        ],
      },
      billing: {
        replies: [
          { text: 'unused: step 1 is triage' },
          { text: 'unused: step 2 is triage' },
          {
            toolCalls: [{ name: 'add', args: { a: 40, b: 2 } }],
            expect: {
              systemIncludes: 'You handle billing.',
              toolsInclude: ['add'],
              toolsExclude: ['echo', 'transfer_to_billing'],
              lastMessageIncludes: "Transferred the conversation to agent 'billing'",
            },
          },
          { text: 'Refunded {{tool:add}} euros.' },
        ],
      },
    },
  });
});

afterAll(async () => {
  await env?.close();
  rmSync(folder, { recursive: true, force: true });
});

const triage = { name: 'triage', model: 'scripted:triage', instructions: 'You route tickets.', tools: ['echo'], handoffs: ['billing'] };
const billing = { name: 'billing', model: 'scripted:billing', instructions: 'You handle billing.', tools: ['add'] };

/** The run ids of a run's executions, first to last. */
async function executionsOf(workflowId: string): Promise<string[]> {
  const runIds: string[] = [];
  for (let runId: string | undefined = (await env.client.workflow.getHandle(workflowId).describe()).runId; runId;) {
    runIds.unshift(runId);
    const history = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return runIds;
}

/** What the Web UI's run page and `temporal workflow metadata` show as the execution's current details. */
async function currentDetails(workflowId: string, runId: string): Promise<string> {
  return (await env.client.workflow.getHandle(workflowId, runId).query<{ currentDetails: string }>('__temporal_workflow_metadata')).currentDetails;
}

describe('handoffs', () => {
  it('transfers the conversation to the target agent, durably, and the history shows it', async () => {
    const run = await env.agents.startRun({ config: triage, task: 'I want my money back', agents: { billing } });
    const result = await run.result();
    expect(result.output).toBe('Refunded 42 euros.');
    expect(result.agent).toBe('billing');
    expect(result.handoffs).toEqual([{ from: 'triage', to: 'billing', step: 2 }]);
    expect(result.toolResults.map((toolResult) => toolResult.toolName)).toEqual(['echo', 'transfer_to_billing', 'add']);
    // billing saw the whole conversation, including triage's work.
    const billingCall = env.modelCalls.find((call) => call.modelId === 'billing');
    expect(billingCall?.request.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
    const transcript = renderTranscript(await buildTranscript(env.client, run.workflowId));
    expect(transcript).toContain('started: agent triage');
    expect(transcript).toContain('→ transfer_to_billing({"reason":"a refund"})');
    expect(transcript).toContain('continued (new run): agent billing, model scripted:billing');
    expect(transcript).toContain('Refunded 42 euros.');
    // Temporal gives the execution after a handoff no summary: its current details say what it is.
    const [first, second] = await executionsOf(run.workflowId);
    expect(await currentDetails(run.workflowId, second!)).toBe(
      'billing (handed off from triage after step 2): I want my money back\n\ncompleted: completed',
    );
    expect(await currentDetails(run.workflowId, first!)).toBe('continued as new after step 2: handed off to billing');
    await recordHistory('handoff', run);
  });

  it("gives the run the target's search attributes, so the skills watcher finds it by the target's sources", async () => {
    const skillsFolder = path.join(folder, 'billing-skills');
    mkdirSync(skillsFolder);
    const withSkills = { ...billing, skill_sources: [path.relative(process.cwd(), skillsFolder)] };
    const run = await env.agents.startRun({ config: triage, task: 'Refund please', agents: { billing: withSkills } });
    expect((await run.result()).agent).toBe('billing');
    const attributes = (await run.workflow.describe()).typedSearchAttributes;
    expect(attributes.get(AgentNameAttribute)).toBe('billing');
    expect(attributes.get(AgentStatusAttribute)).toBe('completed');
    expect(attributes.get(AgentSkillSourcesAttribute)).toEqual([skillsFolder]);
    await recordHistory('handoff-target-attributes', run);
  });

  it("counts the target's steps against its own max_steps, and marks the execution that handed off `continued`", async () => {
    const run = await env.agents.startRun({ config: triage, task: 'Refund, in few steps', agents: { billing: { ...billing, max_steps: 3 } } });
    expect((await run.result()).agent).toBe('billing');
    // Step 4 of the run is billing's second of 3: the status never reads "step 4 of 3".
    expect(await run.status()).toMatchObject({ step: 4, maxSteps: 5, stepBase: 2 });
    const statuses: unknown[] = [];
    await eventually(async () => {
      statuses.length = 0;
      for await (const execution of env.client.workflow.list({ query: `WorkflowId = '${run.workflowId}'` }))
        statuses.push(execution.typedSearchAttributes.get(AgentStatusAttribute));
      return statuses.length === 2 && !statuses.includes('running');
    });
    expect(statuses.sort()).toEqual(['completed', 'continued']);
  });

  it("refuses the planner's handoff calls: the executor's run stays with its agent", async () => {
    const before = env.modelCalls.length;
    const run = await env.agents.startRun({
      config: { ...triage, model: 'scripted:plannedTriage', planning_enabled: true },
      task: 'Where is my refund?',
      agents: { billing },
    });
    const result = await run.result();
    // Both executor steps were triage's: no handoff after the first (billing's script would have answered).
    expect(result).toMatchObject({ output: 'Triage answered: ticket 8', steps: 2 });
    // `agent` and `handoffs` are set only when the run handed off.
    expect(result.agent).toBeUndefined();
    expect(result.handoffs ?? []).toEqual([]);
    expect(env.modelCalls.slice(before).map((call) => call.modelId)).toEqual(['plannedTriage', 'plannedTriage', 'plannedTriage', 'plannedTriage']);
    const events: RunEvent[] = [];
    for await (const event of run.events()) events.push(event);
    expect(events.some((event) => event.type === 'handoff')).toBe(false);
    const refused = events.find((event) => event.type === 'tool-completed' && event.toolName === 'transfer_to_billing');
    expect(refused).toMatchObject({ step: 0, isError: true, content: expect.stringContaining('the planner cannot hand off') });
    await recordHistory('planner-handoff-refused', run);
  });

  it('offers the injected args on handoff tools and records their values, which the transfer does not take', async () => {
    const before = env.modelCalls.length;
    const run = await env.agents.startRun({
      config: { ...triage, model: 'scripted:injectedTriage', injected_tool_args: { ui_request_id: 'Correlation id' } },
      task: 'Refund with a request id',
      agents: { billing },
    });
    const result = await run.result();
    expect(result).toMatchObject({ agent: 'billing', output: 'Refunded 42 euros.' });
    const transfer = env.modelCalls[before]!.request.tools.find((tool) => tool.name === 'transfer_to_billing');
    expect(transfer?.parameters.properties).toMatchObject({
      reason: { type: 'string' },
      ui_request_id: { type: 'string', description: 'Correlation id' },
    });
    const handoffResult = result.toolResults.find((toolResult) => toolResult.toolName === 'transfer_to_billing');
    expect(handoffResult).toMatchObject({ isError: false, content: "Transferred the conversation to agent 'billing'." });
    expect(handoffResult?.metadata.injected_args).toEqual({ ui_request_id: 'req-5' });
    await recordHistory('handoff-injected-args', run);
  });

  it('refuses a handoff to an agent without a config before anything starts', async () => {
    await expect(env.agents.startRun({ config: triage, task: 'x' })).rejects.toMatchObject({
      code: 'AgentConfigError',
      message: expect.stringContaining("handoffs: no config for agent 'billing'"),
    });
  });

  it('resolves handoffs from the folder of the config file in the CLI', async () => {
    writeFileSync(path.join(folder, 'triage.yaml'), stringifyYaml(triage));
    writeFileSync(path.join(folder, 'billing.yaml'), stringifyYaml(billing));
    const result = await runCli(['run', '--config', path.join(folder, 'triage.yaml'), '--task', 'refund', '--follow', '--task-queue', env.taskQueue]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('⇄ step 2: triage hands the conversation to billing');
    expect(result.stdout).toContain('Refunded 42 euros.');
  });
});
