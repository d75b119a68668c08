import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { HISTORIES_DIR } from './support/history-recorder';

/**
 * Histories recorded from real runs (npm run record-histories) replayed against today's workflow
 * code: a change that would break running workflows fails here. Change workflow logic behind
 * `patched()` instead.
 */
describe('replay of recorded histories', () => {
  const files = readdirSync(HISTORIES_DIR).filter((file) => file.endsWith('.json'));

  it('has histories for each recorded path', () => {
    expect(files.length).toBeGreaterThanOrEqual(8);
  });

  it('replays every recorded history without nondeterminism', async () => {
    const histories = files.map((file) => ({
      workflowId: path.basename(file, '.json').split('@')[1] ?? path.basename(file, '.json'),
      history: historyFromJSON(JSON.parse(readFileSync(path.join(HISTORIES_DIR, file), 'utf8'))),
    }));
    const failures: string[] = [];
    let replayed = 0;
    for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: process.env.AGENT_WORKFLOW_BUNDLE! } }, histories)) {
      replayed++;
      if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`);
    }
    expect(failures).toEqual([]);
    expect(replayed).toBe(files.length);
  });
});
