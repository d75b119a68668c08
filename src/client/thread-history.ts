// A thread's history turn by turn, read for the library and the CLI: its histories plus, while it is open, its newest turn results.
import type { Client } from '@temporalio/client';
import { fetchRunChain, type ChainExecution } from '../history/history-view';
import { threadTranscriptFromChain, type ThreadTranscript } from '../history/thread-transcript';
import { threadQuery } from '../protocol/thread-messages';
import type { TurnResult } from '../protocol/thread-types';
import { describeThread, threadReadError } from './thread-lookup';

/**
 * The transcript of thread `threadId`, turn by turn, from its executions' histories (the newest
 * 100; `chain` when the caller read them already). A thread still open is asked for its newest turn
 * results too (the `thread` query, 5 s at most): its history holds a turn's result only once a
 * caller awaited it or the thread carried it into a next execution.
 * @throws ThreadError `ThreadNotFound` for an id with no thread (or a workflow that is not one).
 */
export async function readThreadTranscript(temporal: Client, threadId: string, chain?: ChainExecution[]): Promise<ThreadTranscript> {
  if (!chain) await describeThread(temporal, threadId);
  const executions =
    chain ??
    (await fetchRunChain(temporal, threadId).catch(async (error: unknown) => {
      throw await threadReadError(temporal, threadId, error);
    }));
  return threadTranscriptFromChain(threadId, executions, await openThreadResults(temporal, threadId));
}

async function openThreadResults(temporal: Client, threadId: string): Promise<TurnResult[]> {
  const handle = temporal.workflow.getHandle(threadId);
  const running = await handle.describe().then(
    (description) => description.status.name === 'RUNNING',
    () => false,
  );
  if (!running) return [];
  // A thread whose workers are all down answers nothing: its history alone is shown then.
  return temporal
    .withDeadline(Date.now() + 5_000, () => handle.query(threadQuery))
    .then(
      (status) => status.recentTurns,
      () => [],
    );
}
