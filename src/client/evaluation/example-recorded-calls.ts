// How a dataset example's recorded tool calls reach its evaluation runs: in their input, or through the artifact store when big.
import type { ArtifactStore } from '../../artifacts/artifact-store';
import { artifactStoreFromEnvironment, artifactStoreSource } from '../../artifacts/artifact-store-from-environment';
import { AgentRuntimeError, ErrorCode } from '../../protocol/errors';
import type { ReplaySource } from '../../protocol/fork-types';
import { jsonBytes } from '../../protocol/payload-size';
import type { DatasetExample } from './dataset';

/**
 * Recorded calls up to this size travel in the evaluation run's start input (its history's first
 * event); bigger ones are stored once per example in the artifact store and the input names them.
 * Well under a payload's 1 MB, beside the config and the task.
 */
export const INLINE_RECORDED_CALLS_BYTES = 256_000;

/** What an example's evaluation runs carry of its recorded calls (`ReplaySource` fields). */
export type ExampleRecordedCalls = Pick<ReplaySource, 'recordedCalls' | 'recordedCallsArtifact'>;

/**
 * For each example, its recorded calls inline, or (past `INLINE_RECORDED_CALLS_BYTES`) the id of
 * the artifact that holds them, written before any evaluation run starts: the trials of an
 * example share it. The store is `artifacts`, else the one the environment configures
 * (`AGENT_ARTIFACT_STORE` / `AGENT_ARTIFACT_DIR`, as the workers read it), opened only when an
 * example needs it.
 * @throws AgentRuntimeError `ArtifactStoreUnavailable` naming the store when it cannot be written.
 */
export async function exampleRecordedCalls(
  examples: readonly DatasetExample[],
  evaluation: string,
  artifacts?: ArtifactStore,
): Promise<Map<string, ExampleRecordedCalls>> {
  const carried = new Map<string, ExampleRecordedCalls>();
  let store = artifacts;
  for (const example of examples) {
    const recordedCalls = example.toolCalls.map(({ tool, args, result }) => ({ tool, args, result }));
    if (jsonBytes(recordedCalls) <= INLINE_RECORDED_CALLS_BYTES) {
      carried.set(example.id, { recordedCalls });
      continue;
    }
    store ??= artifactStoreFromEnvironment();
    try {
      const artifactId = await store.put(JSON.stringify(recordedCalls), {
        workflowId: `${evaluation}.${example.id}`,
        toolName: 'dataset-recorded-calls',
        callId: example.id,
      });
      // An empty list stays: the workflow names "the dataset example" for a run that has one.
      carried.set(example.id, { recordedCalls: [], recordedCallsArtifact: artifactId });
    } catch (error) {
      throw new AgentRuntimeError(
        ErrorCode.artifactStoreUnavailable,
        `example ${example.id}: its recorded tool results (${jsonBytes(recordedCalls)} bytes) go through the artifact store, which could not store them (${artifacts ? 'the store given' : artifactStoreSource()}): ${(error as Error).message}`,
      );
    }
  }
  return carried;
}
