/** Calls per tool within the last hour (seed 002). In memory now; the journal will back it later. */
export interface RateCounter {
  count(tool: string, now: number): number;
  record(tool: string, now: number): void;
}

const HOUR_MS = 3_600_000;

export class SlidingWindowCounter implements RateCounter {
  readonly #times = new Map<string, number[]>();

  count(tool: string, now: number): number {
    const times = this.#times.get(tool);
    if (!times) return 0;
    const cutoff = now - HOUR_MS;
    while (times.length > 0 && (times[0] as number) <= cutoff) times.shift();
    return times.length;
  }

  record(tool: string, now: number): void {
    const times = this.#times.get(tool);
    if (times) times.push(now);
    else this.#times.set(tool, [now]);
  }
}
