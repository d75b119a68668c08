// A child workflow's id within a cluster's limit (the bounded-child-ids patch).
import { patched } from '@temporalio/workflow';
import { BOUNDED_CHILD_IDS_PATCH } from './patch-ids';
import { boundedWorkflowId, MAX_WORKFLOW_ID_LENGTH } from './workflow-ids';

/**
 * A child workflow's id within a cluster's 255 characters (see boundedWorkflowId). The patch is
 * consulted only for an id that is too long, so every other run's history stays as it was.
 */
export function childWorkflowId(id: string): string {
  return id.length > MAX_WORKFLOW_ID_LENGTH && patched(BOUNDED_CHILD_IDS_PATCH) ? boundedWorkflowId(id) : id;
}
