// Before-tool decisions a model step recorded, applied to their calls. Pure: unit-tested without a server.
import { ErrorCode } from '../protocol/errors';
import type { ToolDecision } from '../protocol/hook-types';
import type { ToolCall } from '../protocol/messages';
import type { ToolResult } from '../protocol/run-types';
import { splitInjectedArgs } from '../protocol/split-injected-args';
import { workflowErrorResult } from './agent-loop';

/** A decided call: it goes on (possibly with other arguments, possibly after an approval), or it has its result already. */
export type DecidedCall = { kind: 'run'; call: ToolCall; requiredBy: string | null; decision: ToolDecision } | { kind: 'refused'; result: ToolResult };

/**
 * What a call becomes under its decision: denied and failed calls get the error result the model
 * sees (the tool does not run); the others run with the decision's arguments (the model's injected
 * args kept), after an approval when a hook required one.
 */
export function applyToolDecision(call: ToolCall, decision: ToolDecision, step: number, injectedArgNames: readonly string[], now: number): DecidedCall {
  if (decision.action === 'deny') {
    const content = `Error: the call to '${call.name}' was denied by hook '${decision.hook}': ${decision.reason ?? 'no reason given'}. The tool did not run.`;
    return { kind: 'refused', result: withHookDecision(workflowErrorResult(call, step, now, content, ErrorCode.toolDenied), decision) };
  }
  if (decision.action === 'fail') {
    const content = `Error: the call to '${call.name}' did not run: ${decision.reason ?? `hook '${decision.hook}' failed`}.`;
    return { kind: 'refused', result: withHookDecision(workflowErrorResult(call, step, now, content, ErrorCode.hookFailed), decision) };
  }
  const args = decision.args ? { ...decision.args, ...splitInjectedArgs(call.args, injectedArgNames).injected } : call.args;
  const requiredBy = decision.action === 'require_approval' ? `hook ${decision.hook}: ${decision.reason ?? 'approval required'}` : null;
  return { kind: 'run', call: { ...call, args }, requiredBy, decision };
}

/** A result with the decision that shaped its call in its metadata (`hook_decision`). */
export function withHookDecision(result: ToolResult, decision: ToolDecision): ToolResult {
  return {
    ...result,
    metadata: { ...result.metadata, hook_decision: { hook: decision.hook, action: decision.action, reason: decision.reason ?? null, args_changed: decision.args !== undefined } },
  };
}
