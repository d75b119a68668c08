// Asking the workers whether a decision's proof holds: a local activity, so the verdict is a marker in the history and replay never needs the keys.
import { proxyLocalActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import type { DecisionVerdict } from '../../protocol/decision-verdict';
import type { ApprovalDecision } from '../../protocol/run-types';

/**
 * The verdict of the workers on `decision` (`verifyDecision`, run beside this workflow task: the
 * public keys live in the worker process, never in the workflow). A verification that fails as an
 * activity (a bug: the check itself never throws) is a refusal, so the call keeps waiting.
 */
export async function verifyDecisionOnWorker(workflowId: string, decision: ApprovalDecision): Promise<DecisionVerdict> {
  const { verifyDecision } = proxyLocalActivities<AgentActivities>({
    startToCloseTimeout: '10s',
    retry: { maximumAttempts: 3, initialInterval: '1s' },
  });
  try {
    return await verifyDecision({ workflowId, decision });
  } catch (error) {
    return { valid: false, reason: `the workers could not verify the proof (${error instanceof Error ? error.message : String(error)})` };
  }
}
