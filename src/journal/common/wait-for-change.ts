/**
 * Resolves after `waitMs`, at once when `signal` aborts, or when one of `wakers` is called (a
 * store that hears of changes, PostgreSQL's LISTEN, adds its wake-up there): `approvalsChanged`
 * for every store. Every listener and timer is removed however it ends.
 */
export function waitForChange(signal: AbortSignal, waitMs: number, wakers?: Set<() => void>): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      wakers?.delete(done);
      resolve();
    };
    const timer = setTimeout(done, waitMs);
    signal.addEventListener('abort', done, { once: true });
    wakers?.add(done);
  });
}
