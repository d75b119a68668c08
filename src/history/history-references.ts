// What a run's or a thread's history names outside itself: artifacts and child workflows. Deleting it deletes those too.
import type { temporal } from '@temporalio/proto';
import { decode } from './history-events';
import type { ChainExecution } from './history-view';

/** Artifact ids and sub-agent executions named in a chain of executions' histories. */
export interface HistoryReferences {
  /**
   * Artifacts the histories name: conversation snapshots (`artifactId` of a carried conversation,
   * of `saveConversation`'s result) and offloaded tool results (`offloaded_artifact_id`). The
   * parts under a snapshot index are in the store only: `snapshotArtifactIds` lists them.
   */
  artifactIds: Set<string>;
  /** Child workflow executions (sub-agent jobs) the executions started. */
  children: Array<{ workflowId: string; runId: string }>;
}

/** The keys under which payloads name an artifact. */
const ARTIFACT_KEYS = new Set(['artifactId', 'offloaded_artifact_id']);

/**
 * Reads every payload of the histories (inputs, activity results, update outcomes, carried state,
 * results) and collects the artifact ids they name, whatever structure holds them, so a new place
 * that carries a snapshot or a tool result reference is found without a change here.
 */
export function historyReferences(executions: ChainExecution[]): HistoryReferences {
  const artifactIds = new Set<string>();
  const children: HistoryReferences['children'] = [];
  for (const execution of executions) {
    for (const event of execution.events) {
      for (const payload of payloadsOf(event)) collectArtifactIds(decode<unknown>(payload), artifactIds);
      const child = event.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
      if (child?.workflowId && child.runId) children.push({ workflowId: child.workflowId, runId: child.runId });
    }
  }
  return { artifactIds, children };
}

type Payload = temporal.api.common.v1.IPayload;

function isPayload(value: unknown): value is Payload {
  return Boolean(value) && typeof value === 'object' && 'data' in (value as object) && 'metadata' in (value as object);
}

/** Every payload anywhere in an event (an event has at most a few, each at a known depth or in a list). */
function payloadsOf(node: unknown, found: Payload[] = []): Payload[] {
  if (!node || typeof node !== 'object' || ArrayBuffer.isView(node)) return found;
  if (isPayload(node)) {
    found.push(node);
    return found;
  }
  for (const value of Array.isArray(node) ? node : Object.values(node as Record<string, unknown>)) payloadsOf(value, found);
  return found;
}

function collectArtifactIds(value: unknown, found: Set<string>): void {
  if (!value || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) collectArtifactIds(item, found);
    return;
  }
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    if (ARTIFACT_KEYS.has(key) && typeof member === 'string' && member !== '') found.add(member);
    else collectArtifactIds(member, found);
  }
}
