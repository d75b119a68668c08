// Activities that keep a continued run's newest tool results in the artifact store instead of its carried state.
import type { ArtifactStore } from '../artifacts/artifact-store';
import { KEPT_TOOL_RESULTS } from '../protocol/payload-size';
import type { StoredToolResults, ToolResult } from '../protocol/run-types';
import { currentRunExecution } from './run-execution';

/**
 * The artifact's format: the results with the workflow that wrote them (`owner`). Named by content
 * like every artifact, an unowned list could be another workflow's too; the owner makes it this
 * run's or thread's own, so deleting a thread deletes it (src/client/thread-deletion.ts).
 */
export const CARRIED_TOOL_RESULTS_FORMAT = 'durable-agents.carried-tool-results.v1';

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
  const artifactId = await artifacts.put(JSON.stringify({ format: CARRIED_TOOL_RESULTS_FORMAT, owner: execution.workflowId, results: newest }), {
    workflowId: execution.workflowId,
    toolName: 'carried-tool-results',
    callId: `${execution.runId}-tool-results`,
  });
  return { artifactId, count: newest.length };
}

/** The tool results an artifact written by `storeToolResults` holds. */
export async function readToolResults(artifacts: ArtifactStore, stored: StoredToolResults): Promise<ToolResult[]> {
  const { content } = await artifacts.read(stored.artifactId);
  const parsed = JSON.parse(content) as ToolResult[] | { results: ToolResult[] };
  // A plain list: written before the owner was stored with it.
  return Array.isArray(parsed) ? parsed : parsed.results;
}

/** The activity a continued run calls when its result needs the tool results it carried by reference. */
export function createReadCarriedToolResults(dependencies: { artifacts?: ArtifactStore }) {
  return async function readCarriedToolResults(input: { stored: StoredToolResults }): Promise<ToolResult[]> {
    if (!dependencies.artifacts) throw new Error('A continued run reads its carried tool results from the artifact store: this worker has none');
    return readToolResults(dependencies.artifacts, input.stored);
  };
}
