/** A problem with what the user gave the CLI: one line on stderr, exit 2, nothing run. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
