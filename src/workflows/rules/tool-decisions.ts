// Before-tool decisions a model step recorded, applied to their calls. Pure: unit-tested without a server.
import { hookDecider, type CallDecider, type ToolDecision } from '../../protocol/call-deciders';
import { ErrorCode } from '../../protocol/errors';
import type { ToolCall } from '../../protocol/messages';
import type { ToolResult } from '../../protocol/run-types';
import { splitInjectedArgs } from '../../protocol/split-injected-args';
import { withDeciders } from '../../protocol/tool-results';
import { deniedResult, workflowErrorResult } from './tool-result-builders';

/**
 * A decided call: it goes on (possibly with other arguments, possibly after an approval: then
 * `requiresApproval`), or it has its result already. `decider` is the decision's record
 * (`metadata.decided_by`, an approval's `requiredBy`).
 */
export type DecidedCall = { kind: 'run'; call: ToolCall; decider: CallDecider; requiresApproval: boolean } | { kind: 'refused'; result: ToolResult };

/**
 * What a call becomes under its decision: denied and failed calls get the error result the model
 * sees (the tool does not run; denied: `ToolDenied`, status `denied`); the others run with the
 * decision's arguments (the model's injected args kept), after an approval when a hook required one.
 */
export function applyToolDecision(
  call: ToolCall,
  decision: ToolDecision,
  step: number,
  injectedArgNames: readonly string[],
  now: number,
): DecidedCall {
  const decider = hookDecider(decision);
  const { injected } = splitInjectedArgs(call.args, injectedArgNames);
  if (decision.action === 'deny') {
    const content = `Error: the call to '${call.name}' was denied by hook '${decision.hook}': ${decision.reason ?? 'no reason given'}. The tool did not run.`;
    return { kind: 'refused', result: withDeciders(deniedResult(call, step, now, content, injected), [decider]) };
  }
  if (decision.action === 'fail') {
    const content = `Error: the call to '${call.name}' did not run: ${decision.reason ?? `hook '${decision.hook}' failed`}.`;
    return { kind: 'refused', result: withDeciders(workflowErrorResult(call, step, now, content, ErrorCode.hookFailed), [decider]) };
  }
  const args = decision.args ? { ...decision.args, ...injected } : call.args;
  return { kind: 'run', call: { ...call, args }, decider, requiresApproval: decision.action === 'require_approval' };
}
