import type { ToolgateConfig } from '../config/config-schema.js';
import type { GovernanceMode } from '../core/tier.js';
import type { ToolResult } from '../core/tool-result.js';
import type { ModeRecord } from '../journal/journal-types.js';
import type { BatchLog } from '../journal/roles/batch-log.js';
import type { GovernanceLog } from '../journal/roles/governance-log.js';
import { type EventLogger, logEvent } from '../telemetry/event-log.js';
import { AUTO_ACTOR, AutoGovernor, type ModeChange, type ModeNow, SEVERITY } from './auto-governor.js';
import type { PolicyEngine } from './policy-engine.js';

/** The journal as governance uses it: the mode's history, refusals, and the fsync after a change. */
export type GovernanceJournal = GovernanceLog & Pick<BatchLog, 'sync'>;

export interface GovernanceOptions {
  /** Where the mode is kept for every process (`toolgate mode set`); without it, on this gate. */
  journal: GovernanceJournal | undefined;
  /** The policy the mode in force is applied to. */
  policy: Pick<PolicyEngine, 'mode' | 'setMode'>;
  /** The config's `[tools.governance] mode`: in force when nobody set one. */
  configMode: GovernanceMode;
  /** The automatic governor, if `[tools.governance.auto]` is enabled (see `autoGovernorFor`). */
  auto: AutoGovernor | undefined;
  session: string;
  logger: EventLogger | undefined;
}

/**
 * One gate's governance mode (seed 002): where it is read from (the journal, this gate, the
 * config), how it changes (a person, or the automatic governor around each batch), and its
 * application to the policy before every plan.
 */
export class Governance {
  readonly #journal: GovernanceJournal | undefined;
  readonly #policy: Pick<PolicyEngine, 'mode' | 'setMode'>;
  readonly #configMode: GovernanceMode;
  readonly #auto: AutoGovernor | undefined;
  readonly #session: string;
  readonly #logger: EventLogger | undefined;
  #setMode: GovernanceMode | undefined;

  constructor(options: GovernanceOptions) {
    this.#journal = options.journal;
    this.#policy = options.policy;
    this.#configMode = options.configMode;
    this.#auto = options.auto;
    this.#session = options.session;
    this.#logger = options.logger;
  }

  /** The automatic governor, if `[tools.governance.auto]` is enabled. */
  get auto(): AutoGovernor | undefined {
    return this.#auto;
  }

  /**
   * The governance mode in force: the last one set on the journal (`toolgate mode set`, any
   * process), else one set on this gate, else the config's. Read before every plan; cheap when
   * nothing changed (the journal caches it by data_version).
   */
  mode(): { mode: GovernanceMode; source: 'journal' | 'set' | 'config'; record?: ModeRecord } {
    let record: ModeRecord | undefined;
    try {
      record = this.#journal?.governanceMode();
    } catch {
      record = undefined; // an unreadable journal leaves the mode as it was: a plan still fails closed on it
    }
    // A mode kept on this gate (the journal could not take it) wins when it is the stricter one.
    const local = this.#setMode;
    if (record && !(local && SEVERITY[local] > SEVERITY[record.mode]))
      return { mode: record.mode, source: 'journal', record };
    if (local) return { mode: local, source: 'set' };
    return { mode: this.#configMode, source: 'config' };
  }

  /**
   * Changes the governance mode: on the journal when there is one (every process using it follows,
   * durably), else for this gate. Logged as `mode_changed`.
   */
  async setMode(mode: GovernanceMode, reason: string, actor = 'library'): Promise<void> {
    if (this.#journal) {
      this.#journal.recordMode(mode, reason, actor);
      await this.#journal.sync();
      this.#setMode = undefined; // the journal holds it again
    } else {
      this.#setMode = mode;
    }
    this.refreshMode();
  }

  /** Applies the mode in force to the policy; logs `mode_changed` when it changed. Returns it. */
  refreshMode(): GovernanceMode {
    const now = this.mode();
    const before = this.#policy.mode;
    if (now.mode !== before) {
      this.#policy.setMode(now.mode);
      if (this.#logger)
        logEvent(this.#logger, 'warn', 'mode_changed', {
          session: this.#session,
          from: before,
          to: now.mode,
          source: now.source,
          ...(now.record ? { actor: now.record.actor, reason: now.record.reason } : {}),
        });
    }
    return now.mode;
  }

  /** Before a batch is planned: the change the automatic governor asks for, if any (it must be on). */
  async beforeBatch(auto: AutoGovernor): Promise<void> {
    await this.#govern(auto.beforeBatch(this.#modeNow()));
  }

  /** After a batch ran: the change its results call for, if any. */
  async afterBatch(auto: AutoGovernor, results: readonly ToolResult[]): Promise<void> {
    await this.#govern(auto.afterBatch(this.#modeNow(), results));
  }

  #modeNow(): ModeNow {
    const now = this.mode();
    // The person's mode matters only for stepping down a mode the governor set: read the history then.
    const floor = now.record?.actor === AUTO_ACTOR ? this.#personsMode() : undefined;
    return { mode: now.mode, record: now.record, floor };
  }

  /** The mode last chosen by a person (not the governor): on the journal, on this gate, or the config. */
  #personsMode(): GovernanceMode {
    let chosen: GovernanceMode | undefined;
    try {
      chosen = this.#journal?.modeHistory(100).find((r) => r.actor !== AUTO_ACTOR)?.mode;
    } catch {
      chosen = undefined;
    }
    return chosen ?? this.#configMode;
  }

  /** A change the automatic governor asks for; kept on this gate alone if the journal cannot take it. */
  async #govern(change: ModeChange | undefined): Promise<void> {
    if (!change) return;
    try {
      await this.setMode(change.mode, change.reason, AUTO_ACTOR);
    } catch {
      this.#setMode = change.mode;
      this.refreshMode();
    }
  }
}

/**
 * The automatic governor `[tools.governance.auto]` asks for, or undefined when it is off. `paths`:
 * where free space is watched (the roots, and the journal's directory).
 */
export function autoGovernorFor(
  auto: ToolgateConfig['tools']['governance']['auto'],
  paths: () => readonly string[],
  journal: Pick<GovernanceLog, 'noteRefusals' | 'refusalsSince'> | undefined,
): AutoGovernor | undefined {
  if (!auto.enabled) return undefined;
  return new AutoGovernor(
    {
      minFreeBytes: auto.min_free_bytes,
      lockdownAfterRefusals: auto.lockdown_after_refusals,
      windowMs: auto.window_seconds * 1000,
      quietMs: auto.quiet_seconds * 1000,
    },
    paths,
    Date.now,
    undefined,
    journal ? journalLedger(journal) : undefined,
  );
}

/** The journal as the governor's count of refusals, shared by every process that uses it. */
function journalLedger(journal: Pick<GovernanceLog, 'noteRefusals' | 'refusalsSince'>) {
  return {
    note: (times: readonly number[]) => journal.noteRefusals(times),
    since: (t: number) => journal.refusalsSince(t),
  };
}
