import { ApplicationFailure } from '@temporalio/workflow';

/**
 * Reading activity and child-workflow failures: the message a tool result or an error reports
 * is the innermost cause's (the provider's or the tool's own words), not the wrapper's.
 */
export function describeFailure(error: unknown): string {
  let current: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  while (current && typeof current === 'object' && (current as { cause?: unknown }).cause) {
    current = (current as { cause?: unknown }).cause;
    if (current instanceof Error && current.message) message = current.message;
  }
  return message;
}

/** The `type` of the ApplicationFailure at the root of an activity failure, if any. */
export function failureType(error: unknown): string | undefined {
  let current: unknown = error;
  while (current && typeof current === 'object') {
    if (current instanceof ApplicationFailure && current.type) return current.type;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
