// Activities that keep a continued thread's recent turn results' tool results in the artifact store instead of its carried state.
import type { ArtifactStore } from '../artifacts/artifact-store';
import type { StoredToolResults } from '../protocol/run-types';
import type { TurnToolResults } from '../protocol/thread-types';
import { currentRunExecution } from './run-execution';

/** The artifact's format: the tool results of each recent turn, with the thread that wrote them (`owner`, so deleting the thread deletes it). */
export const CARRIED_TURN_RESULTS_FORMAT = 'durable-agents.carried-turn-tool-results.v1';

/** What a thread hands over when it continues: the tool results it holds, and the reference it was itself carried with. */
export interface StoreTurnToolResultsInput {
  /** Turns whose tool results the execution holds in memory (completed in it, or read back). */
  turns: TurnToolResults[];
  /** The artifact this execution was carried with, for turns it never read back. */
  carried?: StoredToolResults;
  /** The turns the next execution keeps (its recent turns): the artifact holds these only. */
  keep: number[];
}

/**
 * Writes the tool results of a thread's recent turns as one artifact: those the execution holds,
 * and the rest from the artifact it was carried with. Named by content like every artifact, so a
 * retry writes the same one. `count` is the number of tool results in it.
 */
export async function storeTurnToolResults(artifacts: ArtifactStore, input: StoreTurnToolResultsInput): Promise<StoredToolResults> {
  const byTurn = new Map<number, TurnToolResults>();
  if (input.carried) for (const turn of await readTurnToolResults(artifacts, input.carried)) byTurn.set(turn.turn, turn);
  for (const turn of input.turns) byTurn.set(turn.turn, turn);
  const kept = input.keep.flatMap((turn) => (byTurn.has(turn) ? [byTurn.get(turn)!] : []));
  const execution = currentRunExecution();
  const artifactId = await artifacts.put(JSON.stringify({ format: CARRIED_TURN_RESULTS_FORMAT, owner: execution.workflowId, turns: kept }), {
    workflowId: execution.workflowId,
    toolName: 'carried-turn-results',
    callId: `${execution.runId}-turn-results`,
  });
  return { artifactId, count: kept.reduce((sum, turn) => sum + turn.toolResults.length, 0) };
}

/** The turns' tool results an artifact written by `storeTurnToolResults` holds. */
export async function readTurnToolResults(artifacts: ArtifactStore, stored: StoredToolResults): Promise<TurnToolResults[]> {
  const { content } = await artifacts.read(stored.artifactId);
  return (JSON.parse(content) as { turns: TurnToolResults[] }).turns;
}

/** The activities a continued thread calls: store its recent turns' tool results before continuing, read them back when a caller asks for one. */
export function createTurnResultActivities(dependencies: { artifacts?: ArtifactStore }) {
  const store = (): ArtifactStore => {
    if (!dependencies.artifacts)
      throw new Error("A continued thread keeps its recent turns' tool results in the artifact store: this worker has none");
    return dependencies.artifacts;
  };
  return {
    storeTurnToolResults: async (input: StoreTurnToolResultsInput): Promise<StoredToolResults> => storeTurnToolResults(store(), input),
    readTurnToolResults: async (input: { stored: StoredToolResults }): Promise<TurnToolResults[]> => readTurnToolResults(store(), input.stored),
  };
}
