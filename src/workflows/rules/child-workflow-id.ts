// A child workflow's id within a cluster's limit.
import { boundedWorkflowId, MAX_WORKFLOW_ID_LENGTH } from './workflow-ids';

/** A child workflow's id within a cluster's 255 characters (see boundedWorkflowId). */
export function childWorkflowId(id: string): string {
  return id.length > MAX_WORKFLOW_ID_LENGTH ? boundedWorkflowId(id) : id;
}
