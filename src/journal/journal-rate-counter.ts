import type { RateCounter } from '../policy/rate-limiter.js';
import type { GovernanceLog } from './journal.js';

const HOUR_MS = 3_600_000;

/** Per-hour rate limits counted from the journal's calls, so they hold across runs and processes. */
export class JournalRateCounter implements RateCounter {
  constructor(private readonly journal: Pick<GovernanceLog, 'countCallsSince'>) {}

  count(tool: string, now: number): number {
    return this.journal.countCallsSince(tool, now - HOUR_MS);
  }

  record(): void {
    // markRunning already stamped started_at: that is the record.
  }
}
