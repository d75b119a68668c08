import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import type { RunHandle } from '../../src/client/agent-client';

export const HISTORIES_DIR = path.resolve(__dirname, '..', 'histories');

/**
 * With `RECORD_HISTORIES=1` (`npm run record-histories`), saves a finished run's history under
 * test/histories/ for the replay test. Otherwise does nothing.
 */
export async function recordHistory(name: string, run: RunHandle): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  // Re-decode so the history is a message instance of the proto module that historyToJSON uses.
  const fetched = await run.workflow.fetchHistory();
  const history = temporal.api.history.v1.History.decode(temporal.api.history.v1.History.encode(fetched).finish());
  mkdirSync(HISTORIES_DIR, { recursive: true });
  writeFileSync(path.join(HISTORIES_DIR, `${name}.json`), `${historyToJSON(history)}\n`);
}
