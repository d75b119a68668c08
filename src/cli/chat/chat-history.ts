// What a chat shows when it opens on a thread that exists: its newest turns (what was said, what was answered) and what still runs.
import type { ThreadHandle } from '../../client/thread-handle';
import type { TurnTranscript } from '../../history/thread-transcript';
import { ErrorCode } from '../../protocol/errors';
import type { ThreadStatus } from '../../protocol/thread-types';
import { describeError } from '../describe-error';

/** The thread as the chat finds it: null for a thread that does not exist yet. */
export interface ThreadOnOpen {
  status: ThreadStatus;
  /** Turns to follow now: the running one, then the queued ones. */
  unfinishedTurns: number[];
}

/**
 * Prints the last `turns` turns of the thread (each user message and the answer) and says what
 * runs or waits now. Returns null for a thread that does not exist (the first message creates it).
 */
export async function showThreadOnOpen(thread: ThreadHandle, turns: number, write: (text: string) => void): Promise<ThreadOnOpen | null> {
  let status: ThreadStatus;
  try {
    status = await thread.status();
  } catch (error) {
    if ((error as { code?: string }).code === ErrorCode.threadNotFound) return null;
    throw error;
  }
  if (turns > 0 && status.turnsCompleted + (status.currentTurn === null ? 0 : 1) > 0) {
    try {
      const transcript = await thread.history();
      const shown = transcript.turns.slice(-turns);
      const earlier = transcript.turns.length - shown.length;
      write(
        `── the thread so far${earlier > 0 ? ` (its last ${shown.length} turns; ${earlier} before them: durable-agents history ${thread.threadId})` : ''} ──\n`,
      );
      for (const turn of shown) write(describeTurn(turn, status.currentTurn === turn.turn));
    } catch (error) {
      write(`! the thread's history could not be read: ${describeError(error)}\n`);
    }
  }
  if (status.phase === 'closed') write(`Thread ${thread.threadId} is closed${status.closedReason ? ` (${status.closedReason})` : ''}.\n`);
  const unfinishedTurns = [...(status.currentTurn === null ? [] : [status.currentTurn]), ...status.queued.map((queued) => queued.turn)];
  if (status.currentTurn !== null) write(`Turn ${status.currentTurn} is still running: following it (what it did so far, then live).\n`);
  for (const queued of status.queued) write(`Queued for turn ${queued.turn}: ${queued.text}\n`);
  return { status, unfinishedTurns: [...new Set(unfinishedTurns)] };
}

function describeTurn(turn: TurnTranscript, running: boolean): string {
  const lines = [`#${turn.turn}`];
  for (const message of turn.messages) lines.push(`you> ${message.text}${message.disposition === 'injected' ? '  (joined the running turn)' : ''}`);
  const answer = turn.result?.output ?? lastModelText(turn);
  if (running) lines.push('  (running)');
  else if (answer) lines.push(`  ${answer.split('\n').join('\n  ')}`);
  if (turn.result && turn.result.stopReason !== 'completed')
    lines.push(`  (${turn.result.stopReason}${turn.result.stopDetail ? `: ${turn.result.stopDetail}` : ''})`);
  return `${lines.join('\n')}\n`;
}

/** The newest model text of a turn whose result was not recorded. */
function lastModelText(turn: TurnTranscript): string | null {
  for (let index = turn.entries.length - 1; index >= 0; index--) {
    const entry = turn.entries[index]!;
    if (entry.kind === 'model' && entry.text) return entry.text;
  }
  return null;
}
