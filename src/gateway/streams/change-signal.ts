// A "something changed" notice many waiters share: each wait ends at the next notify (or its abort).

/**
 * Wakes every waiter at once when notified. A waiter that aborts removes itself, so a stream that
 * waits thousands of times keeps no listeners behind.
 */
export class Signal {
  private waiters = new Set<() => void>();

  /** Resolves at the next `notify`, or when `signal` aborts (at once if it already has). */
  next(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const wake = () => {
        this.waiters.delete(wake);
        signal?.removeEventListener('abort', wake);
        resolve();
      };
      this.waiters.add(wake);
      signal?.addEventListener('abort', wake, { once: true });
    });
  }

  notify(): void {
    const waiting = this.waiters;
    this.waiters = new Set();
    for (const wake of waiting) wake();
  }
}

/** Resolves after `ms`, or at once when `signal` aborts; leaves no timer or listener behind. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
