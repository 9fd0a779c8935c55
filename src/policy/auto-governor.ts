import { statfsSync } from 'node:fs';
import type { GovernanceMode } from '../core/tier.js';
import type { ToolResult } from '../core/tool-result.js';

export interface AutoSettings {
  minFreeBytes: number;
  lockdownAfterRefusals: number;
  windowMs: number;
  quietMs: number;
}

/** The mode in force and, when it was set on the journal, by whom, why and when. */
export interface ModeNow {
  mode: GovernanceMode;
  record?: { actor: string; reason: string; at: number } | undefined;
  /** The mode a person (or the config) last chose: the governor never steps below it. */
  floor?: GovernanceMode | undefined;
}

/** Refusals counted where every process sees them (the journal). */
export interface RefusalLedger {
  note(times: readonly number[]): void;
  since(time: number): number;
}

export interface ModeChange {
  mode: GovernanceMode;
  reason: string;
}

/** Who the governor is in the journal's mode history; only what it set, it undoes. */
export const AUTO_ACTOR = 'auto';

/** How far from NORMAL: the governor only ever raises a mode a person set, never lowers it. */
export const SEVERITY: Record<GovernanceMode, number> = {
  NORMAL: 0,
  RECOVERY: 1,
  ALERT: 2,
  DEGRADED: 3,
  LOCKDOWN: 4,
};

/**
 * The system's errno codes that mean the machine is out of something, read from a result's
 * `metadata.code` (set from the error object, never from its text: a message can carry a path or a
 * name the model chose).
 */
const EXHAUSTED = new Set(['ENOSPC', 'EDQUOT', 'ENOMEM']);
/** Results toolgate itself withheld or refused because the journal could not commit (its own words). */
const JOURNAL_FAILED = /^(not executed: the journal could not|result withheld: )/;
/** Refusals that count as probing the fence: policy and sandbox, not a person's "no". */
const REFUSALS = new Set(['SandboxViolation', 'Denied']);

/**
 * Governance that changes itself (issue #16 §6), driven by calls, never by a timer: before a batch
 * it looks at the free space where the roots and the journal live, after a batch at what the
 * results say. DEGRADED on low disk, on ENOSPC/ENOMEM from a tool, or when the journal cannot
 * commit; LOCKDOWN after `lockdownAfterRefusals` refusals within the window (a model probing the
 * fence). A mode it set (actor `auto`, the cause in brackets in its reason) it undoes when the cause
 * is gone: RECOVERY first, then NORMAL after a quiet period with no new cause. It never lowers a
 * mode a person set.
 */
export class AutoGovernor {
  #refusals: number[] = [];
  #lastTrouble = 0;

  constructor(
    private readonly settings: AutoSettings,
    private readonly paths: () => readonly string[],
    private readonly now: () => number = Date.now,
    private readonly freeBytes: (path: string) => number | undefined = freeBytesAt,
    /** Where refusals are counted across processes (the journal); without it, in this process. */
    private readonly shared?: RefusalLedger,
  ) {}

  /** Before planning a batch: low disk raises DEGRADED; a cause gone steps down. */
  beforeBatch(current: ModeNow): ModeChange | undefined {
    const low = this.#lowDisk();
    if (low) {
      this.#lastTrouble = this.now();
      return raise(current, 'DEGRADED', `[disk] ${low}`);
    }
    return this.#stepDown(current);
  }

  /** After a batch: exhausted resources, a failing journal, or probing raise the mode. */
  afterBatch(current: ModeNow, results: readonly ToolResult[]): ModeChange | undefined {
    const t = this.now();
    let change: ModeChange | undefined;
    for (const r of results) {
      if (!r.error) continue;
      const code = r.metadata?.code;
      // A refusal counts as one whatever its text says.
      if (REFUSALS.has(r.error.type)) {
        this.#refusals.push(t);
      } else if (typeof code === 'string' && EXHAUSTED.has(code)) {
        this.#lastTrouble = t;
        change = strongest(change, raise(current, 'DEGRADED', `[resource] a call failed with ${code}`));
      } else if (r.error.type === 'Internal' && JOURNAL_FAILED.test(r.error.message)) {
        this.#lastTrouble = t;
        change = strongest(change, raise(current, 'DEGRADED', '[journal] the journal could not commit'));
      }
    }
    this.#refusals = this.#refusals.filter((at) => t - at < this.settings.windowMs);
    let refused = this.#refusals.length;
    if (this.shared) {
      // Every process on the journal counts: separate runs cannot each start at zero.
      const mine = results.filter((r) => r.error && REFUSALS.has(r.error.type)).map(() => t);
      try {
        this.shared.note(mine);
        refused = Math.max(refused, this.shared.since(t - this.settings.windowMs));
      } catch {
        // the journal cannot count: this process's own count stands
      }
    }
    if (refused >= this.settings.lockdownAfterRefusals) {
      this.#lastTrouble = t;
      const seconds = Math.round(this.settings.windowMs / 1000);
      change = strongest(
        change,
        raise(current, 'LOCKDOWN', `[probing] ${refused} refused calls within ${seconds} s`),
      );
    }
    return change;
  }

  /** A mode the governor set, whose cause is gone: RECOVERY, then NORMAL after the quiet period. */
  #stepDown(current: ModeNow): ModeChange | undefined {
    const record = current.record;
    if (!record || record.actor !== AUTO_ACTOR || current.mode === 'NORMAL') return undefined;
    const t = this.now();
    const quietFor = t - Math.max(this.#lastTrouble, record.at);
    // Never below what a person (or the config) chose before the governor raised the mode.
    const floor = current.floor ?? 'NORMAL';
    if (current.mode === 'RECOVERY')
      return quietFor >= this.settings.quietMs && floor !== 'RECOVERY'
        ? { mode: floor, reason: `[recovered] quiet for ${Math.round(quietFor / 1000)} s` }
        : undefined;
    // The refusal window has passed with no new cause (the disk was checked just before).
    let recentElsewhere = 0;
    try {
      recentElsewhere = this.shared?.since(t - this.settings.windowMs) ?? 0;
    } catch {
      recentElsewhere = 0; // the journal cannot count: this process's own count decides
    }
    const settled =
      recentElsewhere === 0 &&
      this.#refusals.every((at) => t - at >= this.settings.windowMs) &&
      quietFor >= this.settings.windowMs;
    if (!settled) return undefined;
    // Back to the person's mode when it asks at least as much as RECOVERY; else through RECOVERY.
    const next = SEVERITY[floor] >= SEVERITY.RECOVERY ? floor : 'RECOVERY';
    if (SEVERITY[next] >= SEVERITY[current.mode]) return undefined;
    const cause = /^\[(\w+)\]/.exec(record.reason)?.[1] ?? 'cause';
    return { mode: next, reason: `[${cause}-gone] ${record.reason.replace(/^\[\w+\]\s*/, '')}: no longer` };
  }

  #lowDisk(): string | undefined {
    for (const path of this.paths()) {
      const free = this.freeBytes(path);
      if (free !== undefined && free < this.settings.minFreeBytes)
        return `${free} bytes free where ${path} lives, under [tools.governance.auto] min_free_bytes (${this.settings.minFreeBytes})`;
    }
    return undefined;
  }
}

/** The change to `mode`, if that is more severe than what is in force. */
function raise(current: ModeNow, mode: GovernanceMode, reason: string): ModeChange | undefined {
  return SEVERITY[mode] > SEVERITY[current.mode] ? { mode, reason } : undefined;
}

function strongest(a: ModeChange | undefined, b: ModeChange | undefined): ModeChange | undefined {
  if (!a) return b;
  if (!b) return a;
  return SEVERITY[b.mode] > SEVERITY[a.mode] ? b : a;
}

function freeBytesAt(path: string): number | undefined {
  try {
    const s = statfsSync(path);
    return s.bavail * s.bsize;
  } catch {
    return undefined; // gone or not a filesystem we can ask: nothing to say
  }
}
