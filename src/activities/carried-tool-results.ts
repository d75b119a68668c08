// Activities that keep a continued run's newest tool results in the artifact store instead of its carried state.
import type { ArtifactStore } from '../artifacts/artifact-store';
import { KEPT_TOOL_RESULTS } from '../protocol/payload-size';
import type { StoredToolResults, ToolResult } from '../protocol/run-types';
import { currentRunExecution } from './run-execution';

/** What a run hands over when it continues: its own newest results, and the reference it was itself carried with. */
export interface StoreToolResultsInput {
  toolResults: ToolResult[];
  carried?: StoredToolResults;
}

/**
 * Writes the newest KEPT_TOOL_RESULTS of a run (its own, after those it carried when it has fewer
 * than that many) as one artifact. Named by content like every artifact, so a retry writes the same one.
 */
export async function storeToolResults(artifacts: ArtifactStore, input: StoreToolResultsInput): Promise<StoredToolResults> {
  const earlier = input.carried && input.toolResults.length < KEPT_TOOL_RESULTS ? await readToolResults(artifacts, input.carried) : [];
  const newest = [...earlier, ...input.toolResults].slice(-KEPT_TOOL_RESULTS);
  const execution = currentRunExecution();
  const artifactId = await artifacts.put(JSON.stringify(newest), { workflowId: execution.workflowId, toolName: 'carried-tool-results', callId: `${execution.runId}-tool-results` });
  return { artifactId, count: newest.length };
}

/** The tool results an artifact written by `storeToolResults` holds. */
export async function readToolResults(artifacts: ArtifactStore, stored: StoredToolResults): Promise<ToolResult[]> {
  const { content } = await artifacts.read(stored.artifactId);
  return JSON.parse(content) as ToolResult[];
}

/** The activity a continued run calls when its result needs the tool results it carried by reference. */
export function createReadCarriedToolResults(dependencies: { artifacts?: ArtifactStore }) {
  return async function readCarriedToolResults(input: { stored: StoredToolResults }): Promise<ToolResult[]> {
    if (!dependencies.artifacts) throw new Error('A continued run reads its carried tool results from the artifact store: this worker has none');
    return readToolResults(dependencies.artifacts, input.stored);
  };
}
