import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AnswerRow } from './journal-records.js';

/**
 * Rows of a SQLite journal that decide what runs without asking (grants), answer for a person
 * (approval answers), change the rules (governance modes) or are taken over by a worker on its own
 * (incomplete batches) must prove they were written by this
 * user's toolgate on this machine: a journal committed to a repository, copied from elsewhere or
 * written with `sqlite3` by someone else would otherwise bring its own "always" (issue #30, "State
 * toolgate did not make"). Each such row carries an HMAC-SHA256 over its canonical fields, keyed by
 * this user's seal key (seal-key.ts); a row whose seal does not verify counts for nothing.
 */
export type SealKind = 'grant' | 'answer' | 'mode' | 'batch';
export type SealField = string | number | null;

/** The seal of a row: hex HMAC-SHA256 of its kind and fields, as one JSON array (no ambiguity). */
export function seal(key: Buffer, kind: SealKind, fields: readonly SealField[]): string {
  return createHmac('sha256', key)
    .update(JSON.stringify([`toolgate-${kind}-v1`, ...fields]))
    .digest('hex');
}

/** Whether a stored seal is the one this key gives the row (never without a key or a seal). */
export function sealValid(
  key: Buffer | undefined,
  kind: SealKind,
  fields: readonly SealField[],
  stored: string | null | undefined,
): boolean {
  if (!key || typeof stored !== 'string' || !/^[0-9a-f]{64}$/.test(stored)) return false;
  return timingSafeEqual(Buffer.from(seal(key, kind, fields), 'hex'), Buffer.from(stored, 'hex'));
}

/** A grant's sealed fields, as its row keeps them (what it covers is its prefix or covers text). */
export function grantFields(r: {
  tool: string;
  prefix: string | null;
  covers: string | null;
  scope: string;
  session_id: string | null;
  created_at: number | string;
}): SealField[] {
  return [r.tool, r.prefix, r.covers, r.scope, r.session_id, Number(r.created_at)];
}

/** An approval answer's sealed fields: which call, what was answered, to which preview, by whom. */
export function answerFields(r: AnswerRow): SealField[] {
  return [
    r.batch_id,
    Number(r.call_index),
    r.approved === true || r.approved === 1 ? 1 : 0,
    r.scope,
    r.reason,
    r.preview,
    r.answered_by,
    Number(r.answered_at),
  ];
}

/** A governance mode change's sealed fields. */
export function modeFields(r: {
  mode: string;
  reason: string;
  actor: string;
  created_at: number;
}): SealField[] {
  return [r.mode, r.reason, r.actor, Number(r.created_at)];
}

/** An incomplete batch as a worker looks for one to take over. */
export type BatchSealRow = { id: string; session_id: string; created_at: number; seal: string | null };

/** A batch's sealed fields: which batch, of which session, when. */
export function batchFields(r: { id: string; session_id: string; created_at: number }): SealField[] {
  return [r.id, r.session_id, Number(r.created_at)];
}
