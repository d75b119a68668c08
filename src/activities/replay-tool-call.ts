import type { Client } from '@temporalio/client';
import { fetchRunChain, transcriptFromEvents } from '../history/history-view';
import { toolCallKey } from '../protocol/recorded-calls';
import type { AgentRunWorkflowInput, ReplayToolCallInput, ToolResult } from '../protocol/run-types';
import { DATASET_REPLAY_RUN_ID } from '../protocol/fork-types';
import { ErrorCode } from '../protocol/errors';
import { buildToolResult } from '../protocol/tool-results';
import { decode } from '../history/history-events';

/** One tool call of a recorded run, with its result, matched by `key` (tool and canonical arguments). */
export interface RecordedCall {
  key: string;
  result: ToolResult;
}

/**
 * The tool calls of recorded runs, read from their histories (the `history` view's transcript,
 * the run's whole continue-as-new chain) the first time an evaluation run on this worker asks, and
 * kept for the next calls: a small cache of runs, the newest kept.
 */
export class RecordedRuns {
  private readonly cache = new Map<string, Promise<RecordedCall[]>>();

  constructor(
    private readonly client: Client,
    private readonly maxCachedRuns = 20,
  ) {}

  calls(source: { workflowId: string; runId: string }): Promise<RecordedCall[]> {
    const key = `${source.workflowId}/${source.runId}`;
    let calls = this.cache.get(key);
    if (!calls) {
      calls = this.read(source);
      // A failed read is not kept: the next call tries again.
      calls.catch(() => this.cache.delete(key));
    }
    this.cache.delete(key);
    this.cache.set(key, calls);
    if (this.cache.size > this.maxCachedRuns) this.cache.delete(this.cache.keys().next().value!);
    return calls;
  }

  private async read(source: { workflowId: string; runId: string }): Promise<RecordedCall[]> {
    if (source.runId === DATASET_REPLAY_RUN_ID) return this.readDatasetCalls(source.workflowId);
    const chain = await fetchRunChain(this.client, source.workflowId, source.runId);
    const calls: RecordedCall[] = [];
    for (const execution of chain) {
      for (const entry of transcriptFromEvents(execution.events)) {
        if (entry.kind === 'tool' && entry.result) calls.push({ key: toolCallKey(entry.tool, entry.args), result: entry.result });
      }
    }
    return calls;
  }

  /** An evaluation from a dataset: the example's calls are in the evaluation run's own first input. */
  private async readDatasetCalls(workflowId: string): Promise<RecordedCall[]> {
    const [first] = await fetchRunChain(this.client, workflowId);
    const input = decode<AgentRunWorkflowInput>(first?.events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]);
    return (input?.replay?.recordedCalls ?? []).map(({ tool, args, result }) => ({
      key: toolCallKey(tool, args),
      result: {
        ...buildToolResult({ call: { id: '', name: tool, args: (args ?? {}) as Record<string, unknown> }, step: 0, content: result.content, startedAt: 0, completedAt: 0, ...(result.isError ? { errorCode: result.errorCode ?? ErrorCode.toolFailed } : {}) }),
      },
    }));
  }
}

/** What the replay activity needs: the recorded runs (absent on workers built without a client). */
export interface ReplayDependencies {
  recordings?: RecordedRuns;
}

/**
 * A tool call of an evaluation run: the recorded result of the same call (same tool, same
 * arguments, the same occurrence) as this call's result, or null when the recorded run made no
 * such call. The tool never runs here.
 */
export function createReplayToolCall(dependencies: ReplayDependencies) {
  return async function replayToolCall(input: ReplayToolCallInput): Promise<ToolResult | null> {
    if (!dependencies.recordings) throw new Error('Replay evaluation needs a worker with a Temporal client (the AgentPlugin makes one)');
    const key = toolCallKey(input.call.name, input.call.args);
    const match = (await dependencies.recordings.calls(input.source)).filter((recorded) => recorded.key === key)[input.occurrence - 1];
    return match ? { ...match.result, callId: input.call.id, step: input.step } : null;
  };
}
