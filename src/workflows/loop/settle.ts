// A helper for calls chained with `.then` instead of awaited inside `async` helpers: fewer promises per step.

/**
 * `start()`'s promise, or a rejected one if it throws before making it: a call chained with
 * `.then` that throws synchronously (a payload the SDK cannot convert) fails the way an `async`
 * helper around it would.
 *
 * Why steps chain instead of awaiting: the Temporal SDK takes a stack trace, mapped through the
 * bundle's source map, of every promise workflow code makes (for its stack trace query), so each
 * `async` helper and `await` costs CPU (docs/performance.md, "Where an agent run's workflow CPU goes").
 */
export function settle<T>(start: () => Promise<T>): Promise<T> {
  try {
    return start();
  } catch (error) {
    return Promise.reject(error);
  }
}
