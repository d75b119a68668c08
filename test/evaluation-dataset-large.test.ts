// A dataset example with megabytes of recorded tool results, evaluated through a folder artifact store on a real dev server.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { FolderArtifactStore } from '../src/artifacts/folder-artifact-store';
import { writeDataset, type DatasetExampleInput } from '../src/client/evaluation/dataset';
import { evaluateDataset } from '../src/client/evaluation/evaluate-dataset';
import { decode } from '../src/history/history-events';
import { ErrorCode } from '../src/protocol/errors';
import type { AgentRunWorkflowInput } from '../src/protocol/run-types';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const testTools = createTestTools();
let env: TestEnvironment;
let folder: string;
let artifactsFolder: string;
const config = { name: `large-dataset-${Date.now().toString(36)}`, model: 'scripted:readsParts', tools: ['echo'] };
/** Four recorded results of 520,000 characters each: 2.08 MB, four times what an evaluation run's input could carry. */
const PARTS = 4;
const PART_LENGTH = 520_000;

beforeAll(async () => {
  folder = mkdtempSync(`${process.env.AGENT_TEST_SCRATCH ?? '/tmp'}/evaluation-dataset-large-`);
  artifactsFolder = path.join(folder, 'artifacts');
  env = await createTestEnvironment({
    tools: testTools.tools,
    artifacts: new FolderArtifactStore(artifactsFolder),
    scripts: {
      // Step 1 asks for the four parts at once; step 2 is given them (the last as an offloaded preview).
      readsParts: {
        replies: [
          { toolCalls: Array.from({ length: PARTS }, (_, index) => ({ name: 'echo', args: { text: `part ${index + 1}` } })) },
          { text: 'read all four parts', expect: { lastMessageIncludes: `[${PART_LENGTH} characters in all, stored as artifact` } },
        ],
      },
      small: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'part 1' } }] }, { text: 'small {{tool:echo}}' }] },
    },
  });
});

afterAll(async () => {
  await env?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const largeExample: DatasetExampleInput = {
  id: 'large',
  task: 'Read the four parts',
  answer: 'read all four parts',
  toolCalls: Array.from({ length: PARTS }, (_, index) => ({
    step: 1,
    tool: 'echo',
    args: { text: `part ${index + 1}` },
    result: { content: `${index + 1}`.repeat(PART_LENGTH), isError: false },
  })),
  expected: { answer: 'read all four parts' },
};

async function firstInputOf(workflowId: string): Promise<{ input: AgentRunWorkflowInput | null; bytes: number; historyBytes: number }> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return { input: decode<AgentRunWorkflowInput>(payload), bytes: payload?.data?.length ?? 0, historyBytes: JSON.stringify(history).length };
}

describe('a dataset above 500 KB', () => {
  it('evaluates an example with 2 MB of recorded results: they go through the artifact store, the run input names them, no tool runs', async () => {
    const file = path.join(folder, 'large.jsonl');
    writeDataset(file, [largeExample]);
    expect(statSync(file).size).toBeGreaterThan(2_000_000);
    const before = testTools.executions.length;
    const report = await evaluateDataset(env.agents, {
      dataset: file,
      config,
      artifacts: new FolderArtifactStore(artifactsFolder),
      scorers: [{ type: 'exact' }],
    });
    const large = report.results[0]!;
    expect(large).toMatchObject({
      output: 'read all four parts',
      passed: true,
      toolCalls: Array.from({ length: PARTS }, (_, index) => ({ tool: 'echo', args: { text: `part ${index + 1}` } })),
    });
    expect(report.passed).toBe(true);
    expect(testTools.executions.length).toBe(before);

    // The run carries the artifact's id, not the results.
    const { input, bytes, historyBytes } = await firstInputOf(large.workflowId);
    expect(input?.replay?.recordedCalls).toEqual([]);
    expect(input?.replay?.recordedCallsArtifact).toMatch(/^sha256-/);
    expect(bytes).toBeLessThan(20_000);
    // Each replayed result over the inline limit was offloaded too: the run's whole history stays small.
    expect(historyBytes).toBeLessThan(300_000);
    const stored = readdirSync(artifactsFolder).map((name) => statSync(path.join(artifactsFolder, name)).size);
    expect(Math.max(...stored)).toBeGreaterThan(PARTS * PART_LENGTH);
  });

  it("keeps a small example's recorded results in the run input, as before", async () => {
    const file = path.join(folder, 'small.jsonl');
    writeDataset(file, [
      {
        id: 'small',
        task: 'One part',
        answer: 'small the first part',
        toolCalls: [{ step: 1, tool: 'echo', args: { text: 'part 1' }, result: { content: 'the first part', isError: false } }],
        expected: { answer: 'small the first part' },
      },
    ]);
    const report = await evaluateDataset(env.agents, {
      dataset: file,
      config: { ...config, model: 'scripted:small' },
      artifacts: new FolderArtifactStore(path.join(folder, 'unused')),
      scorers: [{ type: 'exact' }],
    });
    expect(report.results[0]).toMatchObject({ output: 'small the first part', passed: true });
    const { input } = await firstInputOf(report.results[0]!.workflowId);
    expect(input?.replay?.recordedCalls).toEqual([{ tool: 'echo', args: { text: 'part 1' }, result: { content: 'the first part', isError: false } }]);
    expect(input?.replay?.recordedCallsArtifact).toBeUndefined();
  });

  it("fails the example's run, saying why, when the workers do not share the client's artifact store", async () => {
    const elsewhere = new FolderArtifactStore(path.join(folder, 'not-shared'));
    const file = path.join(folder, 'large-elsewhere.jsonl');
    // Other content than the first test's (the folder store names artifacts by their content).
    writeDataset(file, [
      {
        ...largeExample,
        toolCalls: largeExample.toolCalls!.map((call) => ({ ...call, result: { content: `other ${call.result.content}`, isError: false } })),
      },
    ]);
    const report = await evaluateDataset(env.agents, { dataset: file, config, artifacts: elsewhere });
    expect(report.passed).toBe(false);
    expect(report.results[0]!.failure).toContain("not in this worker's artifact store");
    expect(report.results[0]!.failure).toContain(ErrorCode.artifactStoreUnavailable);
  });
});
