import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { WorkflowHandle } from '@temporalio/client';
import { z } from 'zod';
import { FolderArtifactStore } from '../src/artifacts/folder-artifact-store';
import type { RunHandle } from '../src/client/agent-client';
import { jsonBytes, PAYLOAD_LIMIT_BYTES } from '../src/protocol/payload-size';
import type { AgentRunWorkflowInput, CarriedState } from '../src/protocol/run-types';
import { DEFAULT_CONTINUE_AS_NEW_POINT } from '../src/workflows/rules/loop-decisions';
import { defineTool } from '../src/tools/define-tool';
import { recordHistory } from './support/history-recorder';
import { skillMarkdown, tempSkillRoot, writeSkill } from './support/skill-files';
import { CountingArtifactStore } from './support/counting-artifact-store';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * Runs of any length: continue-as-new carries the conversation by reference (a snapshot in the
 * artifact store), a bounded tail of tool results and events, and every payload stays far below
 * Temporal's limits — a 1,000-step run with results just under the offload threshold completes.
 */

const LONG_STEPS = 1_000;
/** Just under the default offload threshold (16,000): every result stays inline in the history. */
const PAGE_CHARACTERS = 15_500;
/** Steps of the run whose continuations carry references: three executions at 300 events each. */
const REFERENCED_STEPS = 60;
/** Small steps (about 12 events each): enough to pass the default continue-as-new point of 2,000 events once. */
const DEFAULT_POINT_STEPS = 200;

const page = defineTool({
  name: 'read_page',
  description: 'Returns one page of a long document.',
  parameters: z.object({ page: z.number().int() }),
  execute: ({ page: number }) => `page ${number}:`.padEnd(PAGE_CHARACTERS, '.'),
});

let env: TestEnvironment;
/** The run's artifact store, counting the bytes of the conversation snapshots the chain writes. */
let artifacts: CountingArtifactStore;
let scratch: string;
let skills: string;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'long-runs-'));
  skills = tempSkillRoot('long-run-skills-');
  writeSkill(skills, 'summarising', skillMarkdown('summarising', 'How to summarise pages', ['echo']));
  env = await createTestEnvironment({
    tools: [page, ...createTestTools().tools],
    artifacts: (artifacts = new CountingArtifactStore(new FolderArtifactStore(path.join(scratch, 'artifacts')))),
    scripts: {
      reader: {
        replies: [
          ...Array.from({ length: LONG_STEPS - 1 }, (_, index) => ({ toolCalls: [{ name: 'read_page', args: { page: index + 1 } }] })),
          { text: 'Read them all; the last was {{tool:read_page}}' },
        ],
      },
      planned: {
        planner: [{ text: '1. Add\n2. Ask before echoing\n3. Answer' }],
        replies: [
          ...Array.from({ length: 8 }, (_, index) => ({ toolCalls: [{ name: 'add', args: { a: index, b: 1 } }] })),
          {
            toolCalls: [{ name: 'echo', args: { text: 'approved after continuing' } }],
            expect: { toolsInclude: ['echo'], systemIncludes: 'summarising' },
          },
          { text: 'Echoed {{tool:echo}}' },
        ],
      },
      chain: {
        replies: [
          ...Array.from({ length: 11 }, (_, index) => ({ toolCalls: [{ name: 'add', args: { a: index, b: 100 } }] })),
          { toolCalls: [{ name: 'transfer_to_closer', args: { reason: 'done counting' } }] },
        ],
      },
      referenced: {
        replies: [
          ...Array.from({ length: REFERENCED_STEPS - 1 }, (_, index) => ({ toolCalls: [{ name: 'read_page', args: { page: index + 1 } }] })),
          { text: 'Read {{tool:read_page}}' },
        ],
      },
      counter: {
        replies: [
          ...Array.from({ length: DEFAULT_POINT_STEPS - 1 }, (_, index) => ({ toolCalls: [{ name: 'add', args: { a: index, b: 1 } }] })),
          { text: 'Counted to {{tool:add}}' },
        ],
      },
      closer: {
        replies: [...Array.from({ length: 12 }, () => ({ text: 'unused: steps 1-12 are the counter' })), { text: 'Closed after {{tool:add}}' }],
      },
    },
  });
});

afterAll(async () => {
  await env?.close();
  rmSync(scratch, { recursive: true, force: true });
  rmSync(skills, { recursive: true, force: true });
});

/** Every execution of a run's chain, oldest first, with its history. */
async function chainOf(run: RunHandle): Promise<Array<{ runId: string; events: Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events'] }>> {
  const chain = [];
  // A handle from startRun knows the chain's first run.
  let runId: string | undefined = (run.workflow as { firstExecutionRunId?: string }).firstExecutionRunId;
  while (runId) {
    const history = await env.client.workflow.getHandle(run.workflowId, runId).fetchHistory();
    chain.push({ runId, events: history.events });
    runId = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return chain;
}

/** The input an execution continued with (its last event's), decoded. */
function continuedInput(
  events: Awaited<ReturnType<typeof chainOf>>[number]['events'],
): (AgentRunWorkflowInput & { carried: CarriedState }) | undefined {
  const payload = events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.input?.payloads?.[0];
  return payload?.data ? JSON.parse(Buffer.from(payload.data).toString('utf8')) : undefined;
}

/** The size of each continue-as-new input of a chain. */
function continuationInputBytes(chain: Awaited<ReturnType<typeof chainOf>>): number[] {
  return chain.flatMap(({ events }) => {
    const payloads = events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.input?.payloads ?? [];
    return payloads.length > 0 ? [payloads.reduce((bytes, payload) => bytes + (payload.data?.length ?? 0), 0)] : [];
  });
}

describe('runs of any length', () => {
  it(`completes a ${LONG_STEPS}-step run whose tool results are just under the offload threshold, continuing as new several times`, async () => {
    const run = await env.agents.startRun({
      config: { name: 'reader', model: 'scripted:reader', tools: ['read_page'], max_steps: LONG_STEPS },
      task: 'Read every page',
    });
    const result = await run.result();
    expect(result).toMatchObject({ stopReason: 'completed', steps: LONG_STEPS, toolResultCount: LONG_STEPS - 1 });
    expect(result.output).toBe(
      `Read them all; the last was page ${LONG_STEPS - 1}:`.padEnd(`Read them all; the last was `.length + PAGE_CHARACTERS, '.'),
    );
    // The result keeps the newest 50 tool results, in step order; the history has all of them.
    expect(result.toolResults.map((toolResult) => toolResult.step)).toEqual(Array.from({ length: 50 }, (_, index) => LONG_STEPS - 50 + index));
    expect(jsonBytes(result)).toBeLessThan(PAYLOAD_LIMIT_BYTES);

    const chain = await chainOf(run);
    expect(chain.length).toBeGreaterThanOrEqual(3);
    const completedTools = chain
      .flatMap(({ events }) => events ?? [])
      .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool');
    expect(completedTools).toHaveLength(LONG_STEPS - 1);
    // Each continuation carried bounded state: far below the 2 MB payload limit, whatever the step.
    const carried = continuationInputBytes(chain);
    expect(carried).toHaveLength(chain.length - 1);
    for (const bytes of carried) expect(bytes).toBeLessThan(32_000);

    // The last model step saw the whole conversation: the task, then an assistant message and a tool result per step.
    const last = env.modelCalls.filter((call) => call.modelId === 'reader').at(-1)!;
    expect(last.request.messages).toHaveLength(1 + (LONG_STEPS - 1) * 2);
    expect(last.request.messages[2]).toMatchObject({ role: 'tool', content: 'page 1:'.padEnd(PAGE_CHARACTERS, '.') });

    // Each continuation wrote only the messages added since the previous one (plus a small index):
    // the snapshots of the chain total about the conversation's own size, not a multiple of it per continuation.
    const conversationBytes = Buffer.byteLength(JSON.stringify(last.request.messages));
    expect(artifacts.bytesPut.get('conversation-snapshot')! / conversationBytes).toBeLessThan(1.1);
  }, 600_000);

  it('carries references, not copies: under 32 KB per continuation with 50 recent tool results, read back for the result', async () => {
    const run = await env.agents.startRun({
      config: { name: 'referenced', model: 'scripted:referenced', tools: ['read_page'], max_steps: REFERENCED_STEPS },
      task: 'Read the pages',
      historyEventLimit: 300,
    });
    const result = await run.result();
    expect(result).toMatchObject({ stopReason: 'completed', steps: REFERENCED_STEPS, toolResultCount: REFERENCED_STEPS - 1 });
    // The last execution ran fewer than 50 tools itself: the rest came back from the artifact the previous one stored.
    expect(result.toolResults.map((toolResult) => toolResult.step)).toEqual(Array.from({ length: 50 }, (_, index) => REFERENCED_STEPS - 50 + index));
    expect(result.toolResults[0]!.content).toBe(`page ${REFERENCED_STEPS - 50}:`.padEnd(1_000, '.') + '…');
    const chain = await chainOf(run);
    expect(chain).toHaveLength(3);
    const carried = continuationInputBytes(chain);
    for (const bytes of carried) expect(bytes).toBeLessThan(32_000);
    // Each carried the newest events (long texts cut), and the next numbered its events after them.
    for (const [index, { events }] of chain.slice(0, -1).entries()) {
      const next = continuedInput(events)!;
      expect(next.carried.toolResultsRef?.count).toBe(25 * (index + 1) > 50 ? 50 : 25 * (index + 1));
      expect(next.carried.recentEvents.length).toBeGreaterThan(5);
      expect(next.carried.recentEvents.at(-1)!.seq).toBe(next.carried.lastEventSeq);
      for (const event of next.carried.recentEvents) expect(JSON.stringify(event).length).toBeLessThan(2_000);
    }
    const lastExecution = chain.at(-1)!.events ?? [];
    expect(lastExecution.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'readCarriedToolResults')).toHaveLength(
      1,
    );
    await recordHistory('carried-references', run);
  }, 300_000);

  it('continues as new at 2,000 events by default, when the input sets no limit', async () => {
    const run = await env.agents.startRun({
      config: { name: 'counter', model: 'scripted:counter', tools: ['add'], max_steps: DEFAULT_POINT_STEPS },
      task: 'Count',
    });
    const result = await run.result();
    expect(result).toMatchObject({ stopReason: 'completed', steps: DEFAULT_POINT_STEPS, output: `Counted to ${DEFAULT_POINT_STEPS - 1}` });
    const chain = await chainOf(run);
    expect(chain).toHaveLength(2);
    // It continued at the start of the first step past 2,000 events: never more than a step's events past it.
    const firstLength = chain[0]!.events!.length;
    expect(firstLength).toBeGreaterThanOrEqual(DEFAULT_CONTINUE_AS_NEW_POINT.events);
    expect(firstLength).toBeLessThan(DEFAULT_CONTINUE_AS_NEW_POINT.events + 40);
    await recordHistory('default-continue-as-new-point', run);
  }, 300_000);

  it('keeps the plan, a pending approval and the skills across a continue-as-new', async () => {
    const run = await env.agents.startRun({
      config: {
        name: 'planned',
        model: 'scripted:planned',
        planning_enabled: true,
        tools: ['add', 'echo'],
        hitl_tools: ['echo'],
        skill_sources: [skills],
      },
      task: 'Add, then echo with approval',
      historyEventLimit: 40,
    });
    const pending = await eventually(async () => (await run.status()).pendingApprovals[0], 60_000);
    expect(pending).toMatchObject({ approvalId: 'step-9.call-1', toolName: 'echo' });
    const status = await run.status();
    expect(status.plan?.steps).toEqual(['Add', 'Ask before echoing', 'Answer']);
    expect(status.skills.flatMap((source) => source.names)).toEqual(['summarising']);
    await run.approve(pending.approvalId, { reason: 'fine', decidedBy: 'test' });
    const result = await run.result();
    expect(result).toMatchObject({
      stopReason: 'completed',
      output: 'Echoed approved after continuing',
      plan: { steps: ['Add', 'Ask before echoing', 'Answer'] },
    });
    expect(result.toolResults.at(-1)?.metadata).toMatchObject({ approval_status: 'approved', approval_id: 'step-9.call-1' });
    expect((await chainOf(run)).length).toBeGreaterThan(1);
    await recordHistory('long-run-plan-approval-skills', run);
  }, 120_000);

  it('hands off at step 12 of a chain of continued runs, and the target sees the whole conversation', async () => {
    const closer = { name: 'closer', model: 'scripted:closer', tools: ['add'] };
    const run = await env.agents.startRun({
      config: { name: 'chain', model: 'scripted:chain', tools: ['add'], handoffs: ['closer'], max_steps: 12 },
      task: 'Count, then hand over',
      agents: { closer },
      historyEventLimit: 30,
    });
    const result = await run.result();
    expect(result).toMatchObject({
      stopReason: 'completed',
      agent: 'closer',
      output: 'Closed after 110',
      handoffs: [{ from: 'chain', to: 'closer', step: 12 }],
    });
    const closerCall = env.modelCalls.filter((call) => call.modelId === 'closer').at(-1)!;
    // task + 12 steps of (assistant, tool)
    expect(closerCall.request.messages).toHaveLength(1 + 12 * 2);
    expect((await chainOf(run)).length).toBeGreaterThan(2);
    await recordHistory('long-run-handoff', run);
  }, 120_000);
});
