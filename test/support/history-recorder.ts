import { mkdirSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
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
  // The workflow id is part of the name: replay needs it (child workflow ids derive from it).
  for (const old of readdirSync(HISTORIES_DIR).filter((file) => file.startsWith(`${name}@`))) unlinkSync(path.join(HISTORIES_DIR, old));
  writeFileSync(path.join(HISTORIES_DIR, `${name}@${run.workflowId}.json`), `${historyToJSON(history)}\n`);
}
