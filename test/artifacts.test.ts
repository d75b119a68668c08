import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { FolderArtifactStore } from '../src/artifacts/folder-artifact-store';
import { buildTranscript, renderTranscript } from '../src/history/history-view';
import { defineTool } from '../src/tools/define-tool';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';

const MB = 1024 * 1024;
const bigText = (part: number) => `part ${part}: `.padEnd(2 * MB, String.fromCharCode(97 + part));
const artifactIdOf = (content: string) => `sha256-${createHash('sha256').update(content).digest('hex')}`;

const huge = defineTool({
  name: 'huge',
  description: 'Returns 2 MB of text.',
  parameters: z.object({ part: z.number().int() }),
  execute: ({ part }) => bigText(part),
});

let env: TestEnvironment;
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'artifacts-'));
  env = await createTestEnvironment({
    tools: [huge],
    artifacts: new FolderArtifactStore(folder),
    scripts: {
      bigResults: {
        replies: [
          { toolCalls: [0, 1, 2].map((part) => ({ name: 'huge', args: { part } })) },
          { toolCalls: [3, 4].map((part) => ({ name: 'huge', args: { part } })) },
          { toolCalls: [{ name: 'read_artifact', args: { artifact_id: artifactIdOf(bigText(3)), offset: 2 * MB - 10, length: 100 } }] },
          { text: 'read {{tool:read_artifact}}' },
        ],
      },
    },
  });
});

afterAll(async () => {
  await env?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('large tool results', () => {
  it('offloads results above the threshold: 10 MB of results leave the history far below the payload limits', async () => {
    const run = await env.agents.startRun({ config: { name: 'reader', model: 'scripted:bigResults', tools: ['huge'] }, task: 'Read everything' });
    const result = await run.result();
    expect(result.stopReason).toBe('completed');
    const offloaded = result.toolResults.filter((toolResult) => toolResult.toolName === 'huge');
    expect(offloaded.map((toolResult) => toolResult.metadata.offloaded_artifact_id)).toEqual(
      [0, 1, 2, 3, 4].map((part) => artifactIdOf(bigText(part))),
    );
    expect(offloaded[0]?.content.startsWith('part 0: aaaa')).toBe(true);
    // The model read the tail of part 3 through the built-in tool.
    expect(result.output).toBe(`read [characters ${2 * MB - 10}-${2 * MB} of ${2 * MB}]\n${'d'.repeat(10)}`);

    const history = await run.workflow.fetchHistory();
    const bytes = temporal.api.history.v1.History.encode(history).finish().length;
    expect(bytes).toBeLessThan(100 * 1024);
    const largestEvent = Math.max(...(history.events ?? []).map((event) => temporal.api.history.v1.HistoryEvent.encode(event).finish().length));
    expect(largestEvent).toBeLessThan(16 * 1024);

    const transcript = renderTranscript(await buildTranscript(env.client, run.workflowId));
    expect(transcript).toContain(`artifact ${artifactIdOf(bigText(0))}`);
    await recordHistory('artifact-offload', run);
  });
});
