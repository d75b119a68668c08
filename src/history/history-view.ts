// A run's transcript read from its Temporal history alone (any run, finished or not, on any worker version).
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { decodeHistoryPayloads } from './decode-history';
import type { Transcript, TranscriptEntry } from './history-entries';
import { TranscriptBuilder } from './transcript-builder';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * The transcript of a run, following its continue-as-new chain (long runs, handoffs) back to the
 * first execution, so the whole conversation reads as one.
 */
export async function buildTranscript(client: Client, workflowId: string, runId?: string): Promise<Transcript> {
  return transcriptOfChain(workflowId, await fetchRunChain(client, workflowId, runId));
}

/** Pure: a chain of executions → one transcript. */
export function transcriptOfChain(workflowId: string, chain: ChainExecution[]): Transcript {
  return { workflowId, runId: chain.at(-1)?.runId ?? '', entries: chain.flatMap((execution) => transcriptFromEvents(execution.events)) };
}

/** One execution of a run's continue-as-new chain: its run id and its (decoded) history events. */
export interface ChainExecution {
  runId: string;
  events: HistoryEvent[];
}

/**
 * The executions of a run's continue-as-new chain, first to last, ending at `runId` (default: the
 * latest), with payloads decoded by the client's codecs. `history`, `fork` and `eval` read runs
 * through it.
 */
export async function fetchRunChain(client: Client, workflowId: string, runId?: string): Promise<ChainExecution[]> {
  const chain: ChainExecution[] = [];
  for await (const execution of chainNewestFirst(client, workflowId, runId)) {
    chain.unshift(execution);
    if (chain.length >= 100) break;
  }
  return chain;
}

/**
 * The executions of a continue-as-new chain one at a time, last to first, with decoded payloads:
 * for readers of a chain of any length (a thread of many executions) that need not hold it all.
 */
export async function* chainNewestFirst(client: Client, workflowId: string, runId?: string): AsyncGenerator<ChainExecution> {
  const description = await client.workflow.getHandle(workflowId, runId).describe();
  let current: string | undefined = description.runId;
  while (current) {
    const fetched: temporal.api.history.v1.IHistory = await client.workflow.getHandle(workflowId, current).fetchHistory();
    // Encrypted payloads (AGENT_PAYLOAD_KEYS) are decoded with the client's codecs first.
    const history = await decodeHistoryPayloads(fetched, client.options.loadedDataConverter.payloadCodecs);
    const events: HistoryEvent[] = history.events ?? [];
    yield { runId: current, events };
    current = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
}

/**
 * Pure: history events → transcript entries, in the order things happened. Every activity of a
 * run has its entry (model steps, compactions, tools, MCP calls and listings, skill loads), as does
 * every sub-agent child workflow; tool calls the workflow answers itself (no activity) are listed
 * after their step's other calls, with the result the run recorded for them.
 */
export function transcriptFromEvents(events: HistoryEvent[]): TranscriptEntry[] {
  const builder = new TranscriptBuilder(events);
  for (const event of events) builder.add(event);
  return builder.finish();
}

// The entry types live in history-entries.ts, the human rendering in history-render.ts.
export type { ToolEntry, Transcript, TranscriptEntry } from './history-entries';
export { renderTranscript } from './history-render';
