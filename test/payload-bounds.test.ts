import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowFailedError } from '@temporalio/client';
import { z } from 'zod';
import { FolderArtifactStore } from '../src/artifacts/folder-artifact-store';
import { ErrorCode } from '../src/protocol/errors';
import { defineTool } from '../src/tools/define-tool';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';

/**
 * A stuck run is impossible by construction: what would pass Temporal's payload limits (and so fail
 * a workflow task or an activity completion for ever) is offloaded, or refused with a typed error.
 */

const writeFile = defineTool({
  name: 'write_file',
  description: 'Writes a file.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => `wrote ${text.length}`,
});
const dump = defineTool({ name: 'dump', description: 'Returns 700,000 characters.', parameters: z.object({}), execute: () => 'd'.repeat(700_000) });

let env: TestEnvironment;
let scratch: string;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'payload-bounds-'));
  env = await createTestEnvironment({
    tools: [writeFile, dump],
    artifacts: new FolderArtifactStore(scratch),
    scripts: {
      hugeArguments: {
        replies: [{ toolCalls: [{ name: 'write_file', args: { text: 'x'.repeat(1_200_000) } }] }, { text: 'It said {{tool:write_file}}' }],
      },
      hugeResult: { replies: [{ toolCalls: [{ name: 'dump', args: {} }] }, { text: 'done' }] },
      hugeReply: { replies: [{ text: 'y'.repeat(1_600_000) }] },
    },
  });
});

afterAll(async () => {
  await env?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('payload bounds', () => {
  it('refuses tool arguments too large for an activity input: an error result the model sees, and the run goes on', async () => {
    const run = await env.agents.startRun({ config: { name: 'writer', model: 'scripted:hugeArguments', tools: ['write_file'] }, task: 'Write it' });
    const result = await run.result();
    expect(result.stopReason).toBe('completed');
    expect(result.toolResults[0]).toMatchObject({ isError: true, errorCode: ErrorCode.payloadTooLarge });
    expect(result.toolResults[0]!.content).toMatch(
      /^Error: the arguments of 'write_file' are \d+ bytes, more than a tool call may carry \(1000000\)/,
    );
  });

  it('offloads a tool result past the hard limit even when the agent’s threshold is higher', async () => {
    const run = await env.agents.startRun({
      config: { name: 'dumper', model: 'scripted:hugeResult', tools: ['dump'], offload_threshold: 10_000_000 },
      task: 'Dump',
    });
    const result = await run.result();
    expect(result.stopReason).toBe('completed');
    expect(result.toolResults[0]!.metadata.offloaded_artifact_id).toMatch(/^sha256-/);
    const stored = await new FolderArtifactStore(scratch).read(result.toolResults[0]!.metadata.offloaded_artifact_id!);
    expect(stored.totalLength).toBe(700_000);
  });

  it('fails a run whose model reply Temporal would refuse, once and with a typed error, instead of retrying for ever', async () => {
    const run = await env.agents.startRun({ config: { name: 'talker', model: 'scripted:hugeReply' }, task: 'Talk' });
    const failure = await run.result().then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toMatchObject({ type: ErrorCode.payloadTooLarge });
    expect(env.modelCalls.filter((call) => call.modelId === 'hugeReply')).toHaveLength(1);
  });
});
