import { Context } from '@temporalio/activity';

/**
 * Runs `work` while heartbeating at a third of the activity's heartbeat timeout, so a worker that
 * dies mid-call is noticed after that timeout instead of the (long) start-to-close timeout.
 */
export async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const timeoutMs = context.info.heartbeatTimeoutMs;
  if (!timeoutMs) return work();
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), Math.max(100, Math.floor(timeoutMs / 3)));
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
