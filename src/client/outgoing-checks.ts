// What the client checks before it sends user text to Temporal: the rules the workflow applies, and the size Temporal takes.
import { EmptyMessageError, InvalidMessageError, PayloadTooLargeError } from '../protocol/errors';
import { grouped, validateApprovalDecision, validateInjectedMessage, type Validated } from '../protocol/message-validation';
import { jsonBytes, PAYLOAD_LIMIT_BYTES } from '../protocol/payload-size';
import type { ApprovalDecision } from '../protocol/run-types';
import { validateCloseRequest, validateThreadMessage } from '../protocol/thread-messages';
import type { ThreadMessage } from '../protocol/thread-types';

/*
 * Why here as well as in the workflow: a payload over Temporal's limit (2 MB) never reaches the
 * workflow's validator. The server fails the update's workflow task instead (`code 9: Unable to
 * perform workflow execution update due to unexpected workflow task failure`), or refuses the
 * start with its own words. Checked first, the caller gets the same typed error the workflow would
 * give (the field and its limit), and nothing is sent.
 */

/** The value of `validated`, or the typed error for its refusal (`EmptyMessageError` says which kind of message). */
function accepted<T>(validated: Validated<T>, kind: 'injected' | 'thread'): T {
  if (validated.ok) return validated.value;
  if (validated.type === 'EmptyMessage') throw new EmptyMessageError(kind);
  throw new InvalidMessageError(validated.reason);
}

/** A thread message as `sendMessage` checks it (text at most 100,000 characters). @throws EmptyMessageError, InvalidMessageError */
export function checkedThreadMessage(message: ThreadMessage): ThreadMessage {
  return accepted(validateThreadMessage(message), 'thread');
}

/** An injected message as `injectMessage` checks it (text at most 100,000 characters). @throws EmptyMessageError, InvalidMessageError */
export function checkedInjectedMessage(text: string): { text: string } {
  return accepted(validateInjectedMessage({ text }), 'injected');
}

/** An approval decision as the run checks it (reason at most 4,000 characters). @throws InvalidMessageError */
export function checkedDecision(decision: ApprovalDecision): ApprovalDecision {
  return accepted(validateApprovalDecision(decision), 'injected');
}

/** A thread's close request as the thread checks it (reason at most 1,000 characters). @throws InvalidMessageError */
export function checkedCloseRequest(request: { reason?: string }): { reason?: string } {
  return accepted(validateCloseRequest(request), 'thread');
}

/**
 * Throws unless `input` (a workflow's input: config, task, messages, agents) fits one payload
 * (`PAYLOAD_LIMIT_BYTES`, 1 MB of JSON: a run carries its input through continue-as-new too). The
 * error names the largest field, the one to shorten.
 * @throws PayloadTooLargeError
 */
export function assertInputFits(what: 'a run' | 'a thread', input: object): void {
  const bytes = jsonBytes(input);
  if (bytes <= PAYLOAD_LIMIT_BYTES) return;
  const sizes = Object.entries(input).map(([field, value]) => ({ field, bytes: jsonBytes(value) }));
  const largest = sizes.reduce((most, each) => (each.bytes > most.bytes ? each : most), { field: 'input', bytes: 0 });
  throw new PayloadTooLargeError(
    largest.field,
    PAYLOAD_LIMIT_BYTES,
    `${largest.field}: ${grouped(largest.bytes)} bytes of JSON; the input of ${what} (config, task, messages and agents together) must be at most ${grouped(PAYLOAD_LIMIT_BYTES)} bytes, not ${grouped(bytes)}`,
  );
}
