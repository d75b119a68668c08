// Records a finished run's histories into the replay corpus (test/histories) when RECORD_HISTORIES=1.
import { mkdirSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import type { RunHandle } from '../../src/client/agent-client';
import { corpusPath, currentRecordingLabel, HISTORIES_DIR, parseCorpusPath, type ExecutionPart } from './history-corpus';

/** The checkout this code runs from (test/support/ is two folders below it). */
const CHECKOUT_ROOT = path.resolve(__dirname, '..', '..');

/**
 * With `RECORD_HISTORIES=1` (`npm run record-histories`), saves a finished run's history under
 * test/histories/<scenario>/ for the replay test, labelled with the newest patch of this code
 * (`since-<patch>`, or `v0.2.0` while the register is empty): every execution of a run that
 * continued as new (`.execution-<i>-of-<n>`), so continuing and being continued are both
 * replayed. A recording with the same label replaces the one before; recordings by older code
 * keep theirs and stay, as the side before each newer patch. Otherwise does nothing.
 */
export async function recordHistory(scenario: string, run: RunHandle): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const executions = await chainOf(run);
  const label = currentRecordingLabel();
  const folder = path.join(HISTORIES_DIR, scenario);
  mkdirSync(folder, { recursive: true });
  for (const old of readdirSync(folder).filter((file) => parseCorpusPath(`${scenario}/${file}`)?.label === label)) unlinkSync(path.join(folder, old));
  executions.forEach((history, index) => {
    const execution: ExecutionPart = executions.length > 1 ? { index: index + 1, count: executions.length } : null;
    writeFileSync(path.join(HISTORIES_DIR, corpusPath({ scenario, label, execution })), `${withoutCheckoutPaths(historyToJSON(history))}\n`);
  });
}

/**
 * Failures' stack traces name files by absolute path: the corpus keeps them relative to the
 * checkout, so it says nothing about the machine that recorded it (replay never reads them).
 */
function withoutCheckoutPaths(json: string): string {
  return json.split(`${CHECKOUT_ROOT}${path.sep}`).join('');
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
