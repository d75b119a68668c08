// A continued thread carries its recent turns' tool results by reference; it reads them back only when a caller asks for such a turn.
import { proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import type { CarriedThreadState, TurnResult } from '../../protocol/thread-types';
import { infrastructureRetryPolicy } from '../rules/infrastructure-retry-policy';
import type { ThreadState } from './thread-state';
import type { ThreadBook } from './thread-book';

/**
 * What the thread's book carries into its next execution. The recent turns go without their tool results (20 turns of up to 50 results each could pass Temporal's
 * payload limit): one `storeTurnToolResults` activity writes them to the artifact store, each
 * carried turn says how many it has there (`toolResultsStored`), and the carried state names the
 * artifact. A thread whose recent turns ran no tool carries them as they are, with no activity.
 */
export async function carryThreadBook(state: ThreadState, book: ThreadBook): Promise<CarriedThreadState> {
  const carried = book.carry();
  const withResults = carried.recentTurns.filter((turn) => turn.toolResults.length > 0 || (turn.toolResultsStored ?? 0) > 0);
  if (withResults.length === 0) return carried;
  const { storeTurnToolResults } = proxyActivities<AgentActivities>({
    activityId: `step-${state.step}.store-turn-results`,
    summary: `step ${state.step}: store the tool results of ${withResults.length} recent turn(s) before continuing as new`,
    startToCloseTimeout: state.timeouts.modelStepMs,
    retry: infrastructureRetryPolicy(30_000),
  });
  const stored = await storeTurnToolResults({
    turns: withResults.filter((turn) => !turn.toolResultsStored).map((turn) => ({ turn: turn.turn, toolResults: turn.toolResults })),
    ...(book.storedTurnResults ? { carried: book.storedTurnResults } : {}),
    keep: withResults.map((turn) => turn.turn),
  });
  return { ...carried, recentTurns: carried.recentTurns.map(withoutToolResults), turnToolResults: stored };
}

function withoutToolResults(turn: TurnResult): TurnResult {
  if (turn.toolResults.length === 0) return turn;
  return { ...turn, toolResults: [], toolResultsStored: turn.toolResults.length };
}

/** Reads in flight, one per book: callers asking for carried turns at once share one activity. */
const reading = new WeakMap<ThreadBook, Promise<void>>();

/**
 * Puts the carried turns' tool results back (one `readTurnToolResults` activity, at most once per
 * execution) when turn `turn` is one whose results the previous execution stored.
 */
export async function restoreTurnToolResults(state: ThreadState, book: ThreadBook, turn: number): Promise<void> {
  if (!book.resultOf(turn)?.toolResultsStored || !book.storedTurnResults) return;
  let read = reading.get(book);
  if (!read) {
    const stored = book.storedTurnResults;
    const { readTurnToolResults } = proxyActivities<AgentActivities>({
      activityId: `step-${state.step}.read-turn-results`,
      summary: `read the tool results of the recent turns the thread carried by reference`,
      startToCloseTimeout: state.timeouts.modelStepMs,
      retry: infrastructureRetryPolicy(30_000),
    });
    read = readTurnToolResults({ stored }).then((turns) => book.restoreStoredResults(turns));
    reading.set(book, read);
  }
  await read;
}
