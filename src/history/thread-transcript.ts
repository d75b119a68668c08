// A thread's history read turn by turn: each turn's messages, its steps and tool calls, its result.
import type { temporal } from '@temporalio/proto';
import { AgentStatusAttribute } from '../protocol/search-attributes';
import type {
  AgentThreadWorkflowInput,
  AwaitTurnReply,
  ThreadMessage,
  ThreadMessageReceipt,
  ThreadResult,
  TurnResult,
} from '../protocol/thread-types';
import { WireName } from '../protocol/wire-names';
import type { TranscriptEntry } from './history-entries';
import { decode } from './history-events';
import type { ChainExecution } from './history-view';
import { TranscriptBuilder } from './transcript-builder';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A user message as the thread accepted it. */
export interface TurnMessage {
  messageId: string;
  text: string;
  /** `started`, `queued`, `interrupting`: the message the turn answers; `injected`: joined the running turn. */
  disposition: ThreadMessageReceipt['disposition'];
}

/** One turn of a thread, as its history tells it. */
export interface TurnTranscript {
  turn: number;
  messages: TurnMessage[];
  /** The turn's steps, tool calls, approvals and sub-agents, in the order they happened. */
  entries: TranscriptEntry[];
  /** How it ended (answer, stop reason, usage), when a result of it was recorded; null while it runs, or when none was. */
  result: TurnResult | null;
}

/** A thread's transcript: its turns, and what happened outside any turn (start, skills, close). */
export interface ThreadTranscript {
  threadId: string;
  /** Its executions (continue-as-new chain), first to last. */
  runIds: string[];
  turns: TurnTranscript[];
  outsideTurns: TranscriptEntry[];
}

/** Whether the chain is a thread's (its first execution is an `agentThread` workflow). */
export function isThreadChain(chain: ChainExecution[]): boolean {
  return chain[0]?.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name === WireName.agentThreadWorkflow;
}

/**
 * Reads a thread's chain of executions turn by turn. A turn begins where the thread's `AgentStatus`
 * turns from `idle` to `running` and ends where it is `idle` again (the thread sets it at those two
 * points and nowhere else: an approval switches between `running` and `awaiting_approval` inside a
 * turn); a turn that a continue-as-new cut in two goes on in the next execution. Each message goes
 * to the turn its receipt named (the `sendMessage` update's outcome). Results come from what the
 * thread recorded: `awaitTurn` answers, the recent turns it carried into each next execution, its
 * final result, and `known` (the `thread` query's answer for a thread still open).
 */
export function threadTranscriptFromChain(threadId: string, chain: ChainExecution[], known: TurnResult[] = []): ThreadTranscript {
  const turns = new Map<number, TurnTranscript>();
  const outsideTurns: TranscriptEntry[] = [];
  const results = new Map<number, TurnResult>(known.map((result) => [result.turn, result]));
  const pendingMessages = new Map<string, ThreadMessage>();
  const turnOf = (turn: number): TurnTranscript => {
    let found = turns.get(turn);
    if (!found) turns.set(turn, (found = { turn, messages: [], entries: [], result: null }));
    return found;
  };
  let nextTurn = 1;
  for (const execution of chain) {
    const input = decode<AgentThreadWorkflowInput>(execution.events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]);
    const carried = input?.carriedThread;
    for (const result of carried?.recentTurns ?? []) keepResult(results, result);
    let current: number | null = carried?.activeTurn?.turn ?? null;
    nextTurn = Math.max(nextTurn, (carried?.turnsCompleted ?? 0) + 1, (current ?? 0) + 1);
    let status = current !== null ? 'running' : 'idle';
    const builder = new TranscriptBuilder(execution.events);
    const stepTurns = new Map<number, number>();
    const place = (entry: TranscriptEntry, fallback: number | null) => {
      const step = 'step' in entry ? entry.step : undefined;
      const turn = step !== undefined ? (stepTurns.get(step) ?? fallback) : fallback;
      if (turn === null) outsideTurns.push(entry);
      else {
        turnOf(turn).entries.push(entry);
        if (step !== undefined && entry.kind === 'model') stepTurns.set(step, turn);
      }
    };
    const placed = new Set<TranscriptEntry>();
    for (const event of execution.events) {
      const upserted = statusOf(event);
      if (upserted === 'running' && status === 'idle') current = nextTurn++;
      if (upserted) status = upserted;
      readMessage(event, pendingMessages, (turn, message) => turnOf(turn).messages.push(message));
      readResults(event, results);
      const before = builder.current.length;
      builder.add(event);
      for (const entry of builder.current.slice(before)) {
        placed.add(entry);
        if (!isMessagePlumbing(entry)) place(entry, current);
      }
      if (upserted === 'idle') current = null;
    }
    // Calls the workflow answered itself are listed once the next step shows they were not an activity's.
    for (const entry of builder.finish()) if (!placed.has(entry) && !isMessagePlumbing(entry)) place(entry, current);
  }
  const ordered = [...turns.values()].sort((a, b) => a.turn - b.turn);
  for (const turn of ordered) turn.result = results.get(turn.turn) ?? null;
  return { threadId, runIds: chain.map((execution) => execution.runId), turns: ordered, outsideTurns };
}

/** The `AgentStatus` an upsert (or the start) sets, if any. */
function statusOf(event: HistoryEvent): string | null {
  const fields = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
  const payload = fields?.[AgentStatusAttribute.name];
  return payload ? decode<string>(payload) : null;
}

/** A `sendMessage` update: its message when accepted, its turn when completed (a duplicate adds nothing). */
function readMessage(event: HistoryEvent, pending: Map<string, ThreadMessage>, add: (turn: number, message: TurnMessage) => void): void {
  const accepted = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
  if (accepted?.input?.name === WireName.sendMessageUpdate && accepted.meta?.updateId) {
    const message = decode<ThreadMessage>(accepted.input.args?.payloads?.[0]);
    if (message) pending.set(accepted.meta.updateId, message);
    return;
  }
  const completed = event.workflowExecutionUpdateCompletedEventAttributes;
  const updateId = completed?.meta?.updateId;
  const message = updateId ? pending.get(updateId) : undefined;
  if (!updateId || !message) return;
  pending.delete(updateId);
  const receipt = decode<ThreadMessageReceipt>(completed?.outcome?.success?.payloads?.[0]);
  if (receipt && !receipt.duplicate) add(receipt.turn, { messageId: message.messageId, text: message.text, disposition: receipt.disposition });
}

/** Turn results the thread recorded: `awaitTurn` answers, carried recent turns, the final result. */
function readResults(event: HistoryEvent, results: Map<number, TurnResult>): void {
  const reply = decode<AwaitTurnReply>(event.workflowExecutionUpdateCompletedEventAttributes?.outcome?.success?.payloads?.[0]);
  if (reply && typeof reply === 'object' && reply.status === 'completed' && reply.result) results.set(reply.result.turn, reply.result);
  const continued = decode<AgentThreadWorkflowInput>(event.workflowExecutionContinuedAsNewEventAttributes?.input?.payloads?.[0]);
  for (const result of continued?.carriedThread?.recentTurns ?? []) keepResult(results, result);
  const closed = decode<ThreadResult>(event.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0]);
  if (closed?.lastTurn) results.set(closed.lastTurn.turn, closed.lastTurn);
}

/** Records a carried turn result, unless it came without its tool results (stored by reference) and a whole one is known. */
function keepResult(results: Map<number, TurnResult>, result: TurnResult): void {
  if (result.toolResultsStored && results.has(result.turn)) return;
  results.set(result.turn, result);
}

/** Updates that carry messages and results in: the turn headers show what they say. */
function isMessagePlumbing(entry: TranscriptEntry): boolean {
  return entry.kind === 'update' && (entry.name === WireName.sendMessageUpdate || entry.name === WireName.awaitTurnUpdate);
}
