// The replay activity: an evaluation run's tool call answered with the recorded result (a run's history, or a dataset example).
import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { ArtifactNotFoundError, type ArtifactStore } from '../artifacts/artifact-store';
import { cutToLimit, TOOL_CONTENT_LIMIT_CHARACTERS } from '../protocol/payload-size';
import { offloadToolContent } from './offload-tool-content';
import { currentRunExecution } from './run-execution';
import { fetchRunChain, transcriptFromEvents } from '../history/history-view';
import { toolCallKey } from '../protocol/recorded-calls';
import type { AgentRunWorkflowInput, ReplayToolCallInput, ToolResult } from '../protocol/run-types';
import { DATASET_REPLAY_RUN_ID, type DatasetRecordedCall } from '../protocol/fork-types';
import { ErrorCode } from '../protocol/errors';
import { buildToolResult } from '../protocol/tool-results';
import { decode } from '../history/history-events';

/**
 * The calls of a dataset example stored in the artifact store (`ReplaySource.recordedCallsArtifact`).
 * A store that lacks the artifact is not shared with the client that evaluated: retrying cannot help.
 */
async function readStoredCalls(artifacts: ArtifactStore | undefined, artifactId: string): Promise<DatasetRecordedCall[]> {
  if (!artifacts)
    throw ApplicationFailure.nonRetryable(
      `The dataset example's recorded tool results are artifact ${artifactId}, and this worker has no artifact store`,
      ErrorCode.artifactStoreUnavailable,
    );
  try {
    return JSON.parse((await artifacts.read(artifactId)).content) as DatasetRecordedCall[];
  } catch (error) {
    if (!(error instanceof ArtifactNotFoundError)) throw error;
    throw ApplicationFailure.nonRetryable(
      `The dataset example's recorded tool results (artifact ${artifactId}) are not in this worker's artifact store: the client that started the evaluation and the workers must share one (AGENT_ARTIFACT_STORE or AGENT_ARTIFACT_DIR)`,
      ErrorCode.artifactStoreUnavailable,
    );
  }
}

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

  /** @param artifacts the workers' artifact store: a dataset example's calls too big for the run's input are there. */
  constructor(
    private readonly client: Client,
    private readonly maxCachedRuns = 20,
    private readonly artifacts?: ArtifactStore,
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

  private storedCalls(artifactId: string): Promise<DatasetRecordedCall[]> {
    return readStoredCalls(this.artifacts, artifactId);
  }

  /** An evaluation from a dataset: the example's calls are in the evaluation run's own first input, or in the artifact it names. */
  private async readDatasetCalls(workflowId: string): Promise<RecordedCall[]> {
    const [first] = await fetchRunChain(this.client, workflowId);
    const input = decode<AgentRunWorkflowInput>(first?.events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]);
    const artifactId = input?.replay?.recordedCallsArtifact;
    const recordedCalls = artifactId ? await this.storedCalls(artifactId) : (input?.replay?.recordedCalls ?? []);
    return recordedCalls.map(({ tool, args, result }) => ({
      key: toolCallKey(tool, args),
      result: {
        ...buildToolResult({
          call: { id: '', name: tool, args: (args ?? {}) as Record<string, unknown> },
          step: 0,
          content: result.content,
          startedAt: 0,
          completedAt: 0,
          ...(result.isError ? { errorCode: result.errorCode ?? ErrorCode.toolFailed } : {}),
        }),
      },
    }));
  }
}

/** What the replay activity needs: the recorded runs (absent on workers built without a client), the artifact store for long results. */
export interface ReplayDependencies {
  recordings?: RecordedRuns;
  artifacts?: ArtifactStore;
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
    if (!match) return null;
    // A recorded result longer than a tool result may be inline is offloaded as a live call's would be.
    const { workflowId } = currentRunExecution();
    const offloaded = await offloadToolContent(dependencies.artifacts, match.result.content, TOOL_CONTENT_LIMIT_CHARACTERS, {
      workflowId,
      toolName: input.call.name,
      callId: input.call.id,
    });
    const result = { ...match.result, callId: input.call.id, step: input.step };
    if (!offloaded) return { ...result, content: cutToLimit(result.content) };
    return { ...result, content: offloaded.preview, metadata: { ...result.metadata, offloaded_artifact_id: offloaded.artifactId } };
  };
}
