// How a fork's edit is named to people: the Web UI's details, `history`, error messages.
import type { ForkEdit } from './fork-types';

/**
 * "the result of lookup_order (call_1) at step 2", "the user message of step 1": what an edit
 * changed, without its content. Pure.
 * @example
 * describeForkEdit({ kind: 'message', step: 1, index: 0, role: 'user', content: 'Hi', recorded: 'Hello' }); // 'the user message of step 1'
 */
export function describeForkEdit(edit: ForkEdit): string {
  return edit.kind === 'tool-result'
    ? `the result of ${edit.tool} (${edit.callId}) at step ${edit.step}`
    : `the ${edit.role === 'user' ? 'user message' : "model's reply text"} of step ${edit.step}`;
}
