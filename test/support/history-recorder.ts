import { mkdirSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import type { RunHandle } from '../../src/client/agent-client';

export const HISTORIES_DIR = path.resolve(__dirname, '..', 'histories');

/**
 * With `RECORD_HISTORIES=1` (`npm run record-histories`), saves a finished run's history under
 * test/histories/ for the replay test: every execution of a run that continued as new
 * (`<name>-run<i>of<n>@<id>.json`), so continuing and being continued are both replayed.
 * Otherwise does nothing.
 */
export async function recordHistory(name: string, run: RunHandle): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const executions = await chainOf(run);
  mkdirSync(HISTORIES_DIR, { recursive: true });
  // The workflow id is part of the name: replay needs it (child workflow ids derive from it).
  for (const old of readdirSync(HISTORIES_DIR).filter((file) => file.startsWith(`${name}@`) || file.startsWith(`${name}-run`))) unlinkSync(path.join(HISTORIES_DIR, old));
  executions.forEach((history, index) => {
    const part = executions.length > 1 ? `-run${index + 1}of${executions.length}` : '';
    writeFileSync(path.join(HISTORIES_DIR, `${name}${part}@${run.workflowId}.json`), `${historyToJSON(history)}\n`);
  });
}

/** The histories of a run's executions, first to last (re-decoded for the proto module historyToJSON uses). */
async function chainOf(run: RunHandle): Promise<temporal.api.history.v1.History[]> {
  // A handle from startRun knows the chain's first run; any other records the latest execution.
  let runId: string | undefined = (run.workflow as WorkflowHandle & { firstExecutionRunId?: string }).firstExecutionRunId;
  if (!runId) runId = await firstRunOf(run);
  const histories: temporal.api.history.v1.History[] = [];
  while (runId) {
    const history = await run.workflow.client.getHandle(run.workflowId, runId).fetchHistory();
    histories.push(reencode(history));
    runId = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return histories;
}

/** The first execution of the chain that ends with the run's latest, walking back through the executions it continued. */
async function firstRunOf(run: RunHandle): Promise<string> {
  let runId = (await run.workflow.describe()).runId;
  for (;;) {
    const history = await run.workflow.client.getHandle(run.workflowId, runId).fetchHistory();
    const previous = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) return runId;
    runId = previous;
  }
}

function reencode(fetched: Parameters<typeof temporal.api.history.v1.History.encode>[0]): temporal.api.history.v1.History {
  return temporal.api.history.v1.History.decode(temporal.api.history.v1.History.encode(fetched).finish());
}
