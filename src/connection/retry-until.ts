import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Calls `attempt` until it succeeds, `retryable` refuses its error, or `withinMs` has passed
 * (then the last error is thrown). `onRetry` hears each retried error, at most every 10 s.
 * For one-shot steps that start alongside the server they need (compose's `setup`).
 */
export async function retryUntil<T>(
  attempt: () => Promise<T>,
  options: { withinMs: number; retryable: (error: unknown) => boolean; onRetry?: (error: unknown, waitedMs: number) => void; pauseMs?: number },
): Promise<T> {
  const started = Date.now();
  let lastReport = -Infinity;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      const waited = Date.now() - started;
      if (waited >= options.withinMs || !options.retryable(error)) throw error;
      if (Date.now() - lastReport >= 10_000) {
        options.onRetry?.(error, waited);
        lastReport = Date.now();
      }
      await sleep(Math.min(options.pauseMs ?? 1_000, options.withinMs - waited));
    }
  }
}
