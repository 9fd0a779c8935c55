import type { GovernanceMode } from '../../core/tier.js';
import type { ModeRecord } from '../journal-types.js';

/**
 * Governance: the mode and its history, refused calls for the automatic governor, and call counts
 * for per-hour rate limits.
 */
export interface GovernanceLog {
  /** Refused calls at these times (ms), for the automatic governor; entries older than a day go. */
  noteRefusals(times: readonly number[]): void;
  /** How many refused calls were noted at or after `since` (ms), by any process on this journal. */
  refusalsSince(since: number): number;
  /** The governance mode last set on this journal (`toolgate mode set`), if any. */
  governanceMode(): ModeRecord | undefined;
  /** Records a mode change (committed; `sync()` after it for a power loss too). */
  recordMode(mode: GovernanceMode, reason: string, actor: string): ModeRecord;
  /** Mode changes, newest first. */
  modeHistory(limit: number): ModeRecord[];
  /** Calls of a tool started since `since` (ms), across sessions: backs per-hour rate limits. */
  countCallsSince(tool: string, since: number): number;
}
