import { ApplicationFailure, log } from '@temporalio/workflow';
import type { RefusalType, Validated } from '../../protocol/message-validation';
import type { EventLog } from './event-log';

/**
 * The failure an update validator throws to refuse a message: a stable `type`, never retried, and
 * the reason alone (no stack: the client and the Web UI show no worker file paths); `details`, what
 * a client acts on besides the type (a closing thread that reopens: `{ reopens: true }`).
 */
export function refusal(type: RefusalType, reason: string, details?: Record<string, unknown>): ApplicationFailure {
  const failure = ApplicationFailure.create({ type, message: reason, nonRetryable: true, ...(details ? { details: [details] } : {}) });
  failure.stack = '';
  return failure;
}

/** Throws the refusal of an invalid update payload; returns the valid value. For update validators. */
export function validOrRefuse<T>(checked: Validated<T>): T {
  if (!checked.ok) throw refusal(checked.type, checked.reason);
  return checked.value;
}

/** Logs an ignored signal (workflow `log.warn`) and records it in the run's event log (`signal-ignored`). */
export function reportIgnoredSignal(events: EventLog, signal: string, reason: string): void {
  log.warn(`Ignored a ${signal} signal: ${reason}`, { signal, reason });
  events.push({ type: 'signal-ignored', signal, reason });
}
