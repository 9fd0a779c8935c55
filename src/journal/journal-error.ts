/** A journal problem: what failed, where, and what to do. Nothing runs after one at batch start. */
export class JournalError extends Error {
  /**
   * The write may have been committed all the same (a server that did not answer in time, or a
   * connection lost while it committed): its outcome is unknown, not a failure.
   */
  readonly outcomeUnknown: boolean;

  constructor(message: string, options: { outcomeUnknown?: boolean } = {}) {
    super(message);
    this.name = 'JournalError';
    this.outcomeUnknown = options.outcomeUnknown === true;
  }
}
