/** What `raceAbort` rejects with when the turn was aborted first. */
export const ABORTED = Symbol('aborted');

/**
 * `promise`, unless `signal` aborts first: then it rejects with ABORTED and `promise` is let go.
 * A promise let go still settles later, and its failure is no longer anyone's news: the connection
 * it waited on closing ("ACP connection closed") must not surface as an unhandled rejection, which
 * the bridge logs as an internal error and the tests count as a failure. So it is always handled here,
 * also when the signal had aborted before the race began.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(ABORTED);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
