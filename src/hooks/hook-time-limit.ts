// A hook's time limit: a hook that has not returned in time is a hook failure, so a hung hook cannot hold its activity (and the run) for ever.

/** The error of a hook over its time limit; its message is the failure's (`hook 'x' (before-tool) failed: did not return within …`). */
export class HookTimeLimitError extends Error {
  constructor(limit: { ms: number; why: string }) {
    super(`did not return within ${limit.ms} ms (${limit.why})`);
    this.name = 'HookTimeLimitError';
  }
}

/**
 * `run`'s result, or a HookTimeLimitError once `limit.ms` passed. The hook's own promise cannot be
 * stopped: it goes on in the background, and what it returns late is ignored.
 */
export async function withTimeLimit<T>(run: () => T | Promise<T>, limit: { ms: number; why: string }): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HookTimeLimitError(limit)), limit.ms);
  });
  try {
    return await Promise.race([Promise.resolve().then(run), expired]);
  } finally {
    clearTimeout(timer);
  }
}
