import { randomUUID } from 'node:crypto';
import type { ToolCall } from '../../core/tool-call.js';
import type { ToolResult } from '../../core/tool-result.js';
import { batchMessages } from '../common/batch-messages.js';
import { JournalError } from '../journal-error.js';
import { decisionJson, leaseLost, notStartable, takenOver } from '../journal-records.js';
import type { BeginBatchOptions, FinishedCall, Lease, PlanEntry } from '../journal-types.js';
import type { BatchLog } from '../roles/batch-log.js';
import { ensureSession, messageStatements } from './conversation.js';
import { markGivenUp } from './given-up.js';
import { INCOMPLETE, NOW_MS, type PgContext } from './pg-context.js';
import type { PgStatement } from './sync-pg.js';

/** The batch log's writes (where it is, and `sync`, are the journal's own). */
type BatchWrites = Omit<
  BatchLog,
  'location' | 'file' | 'durableCommits' | 'beginsRunning' | 'atOneMoment' | 'sync'
>;

/**
 * The batch log on PostgreSQL: every batch and call, each decision, start and result. Each write
 * is one transaction sent in one round trip, committed when the method returns. A write that must
 * find the batch still this process's carries a guard: a division by zero that rolls it all back.
 */
export class PgBatchLog implements BatchWrites {
  readonly #ctx: PgContext;

  constructor(ctx: PgContext) {
    this.#ctx = ctx;
  }

  beginBatch(session: string, calls: readonly ToolCall[], options: BeginBatchOptions = {}): string {
    const id = options.batchId ?? randomUUID();
    this.#guarded(id, () => this.#ctx.write(this.#insertBatch(id, session, calls, options, Date.now())));
    this.#ctx.sessionOf.set(id, options.messages === false ? undefined : session);
    return id;
  }

  recordFinishedBatch(
    session: string,
    calls: readonly ToolCall[],
    finished: readonly FinishedCall[],
    options: BeginBatchOptions = {},
  ): string {
    const id = options.batchId ?? randomUUID();
    this.#ctx.write(this.#insertBatch(id, session, calls, options, Date.now(), finished));
    return id;
  }

  /**
   * The batch, its calls (with decisions) and the assistant message; with `finished`, each call's
   * result and `tool` message too, and the batch complete. Calls already journaled while streaming
   * are kept (only their decision and approval are set).
   */
  #insertBatch(
    id: string,
    session: string,
    calls: readonly ToolCall[],
    options: BeginBatchOptions,
    now: number,
    finished?: readonly FinishedCall[],
  ): PgStatement[] {
    const text = options.assistantText ?? null;
    const out: PgStatement[] = [ensureSession(session, now)];
    // Begun over calls journaled while streaming: only if nobody settled or took the batch meanwhile
    // (a division by zero rolls the whole write back).
    if (!finished && options.batchId !== undefined)
      out.push({
        text: `SELECT 1 / (1 - count(*)) FROM batches WHERE id = $1
                 AND NOT (status = 'open' AND (lease_owner IS NULL OR lease_owner IS NOT DISTINCT FROM $2))`,
        values: [id, options.lease?.worker ?? null],
      });
    out.push(
      finished
        ? {
            text: `INSERT INTO batches (id, session_id, status, assistant_text, created_at, finished_at, owner)
                   VALUES ($1, $2, 'complete', $3, $4, $4, $5) ON CONFLICT (id) DO UPDATE SET assistant_text = excluded.assistant_text`,
            values: [id, session, text, now, this.#ctx.owner],
          }
        : {
            text: `INSERT INTO batches (id, session_id, status, assistant_text, created_at, owner, lease_owner, lease_expires)
                   VALUES ($1, $2, 'open', $3, $4, $5, $6, CASE WHEN $6::text IS NULL THEN NULL ELSE ${NOW_MS} + $7 END)
                   ON CONFLICT (id) DO UPDATE SET assistant_text = excluded.assistant_text,
                     lease_owner = excluded.lease_owner, lease_expires = excluded.lease_expires`,
            values: [
              id,
              session,
              text,
              now,
              this.#ctx.owner,
              options.lease?.worker ?? null,
              options.lease?.ttlMs ?? 0,
            ],
          },
    );
    const plan = new Map((options.plan ?? []).map((e) => [e.index, e]));
    const resultJson = finished?.map((f) => JSON.stringify(f.result));
    if (calls.length > 0) {
      const values: unknown[] = [];
      const rows: string[] = [];
      for (const [index, call] of calls.entries()) {
        const f = finished?.[index];
        const row = [
          id,
          index,
          call.id,
          call.name,
          JSON.stringify(call.arguments),
          f ? f.status : 'planned',
          decisionJson(plan.get(index)),
          f ? (resultJson?.[index] ?? null) : null,
          f ? (f.startedAt ?? null) : null,
          f ? f.finishedAt : null,
        ];
        rows.push(`(${row.map((_, i) => `$${values.length + i + 1}`).join(', ')})`);
        values.push(...row);
      }
      out.push({
        text: `INSERT INTO calls (batch_id, call_index, call_id, name, arguments, status, decision, result, started_at, finished_at)
               VALUES ${rows.join(', ')}
               ON CONFLICT (batch_id, call_index) DO UPDATE SET decision = coalesce(excluded.decision, calls.decision)`,
        values,
      });
    }
    if (!finished) {
      for (const entry of options.plan ?? []) if (entry.approval) out.push(...awaiting(id, entry));
    }
    for (const m of batchMessages(options, text, calls, finished, resultJson))
      out.push(...messageStatements(session, m.role, m.content, id, m.callId, m.json));
    return out;
  }

  recordStreamedCall(session: string, batchId: string, index: number, call: ToolCall, lease?: Lease): void {
    const now = Date.now();
    this.#ctx.write([
      ensureSession(session, now),
      // Held while the model is still writing the rest: no one takes over a batch still streaming.
      {
        text: `INSERT INTO batches (id, session_id, status, assistant_text, created_at, owner, lease_owner, lease_expires)
               VALUES ($1, $2, 'open', NULL, $3, $4, $5, CASE WHEN $5::text IS NULL THEN NULL ELSE ${NOW_MS} + $6 END)
               ON CONFLICT (id) DO NOTHING`,
        values: [batchId, session, now, this.#ctx.owner, lease?.worker ?? null, lease?.ttlMs ?? 0],
      },
      {
        text: "INSERT INTO calls (batch_id, call_index, call_id, name, arguments, status) VALUES ($1, $2, $3, $4, $5, 'planned')",
        values: [batchId, index, call.id, call.name, JSON.stringify(call.arguments)],
      },
    ]);
  }

  replan(batchId: string, plan: readonly PlanEntry[]): void {
    const out: PgStatement[] = [];
    for (const entry of plan) {
      const value = decisionJson(entry);
      if (value !== null)
        out.push({
          text: 'UPDATE calls SET decision = $1 WHERE batch_id = $2 AND call_index = $3',
          values: [value, batchId, entry.index],
        });
      if (entry.approval) out.push(...awaiting(batchId, entry));
    }
    this.#ctx.write(out);
  }

  markApproved(batchId: string, indexes: readonly number[], lease?: Lease): void {
    this.#guarded(batchId, () =>
      this.#ctx.write([
        {
          text: `SELECT 1 / count(*) FROM batches WHERE id = $1 AND status IN ${INCOMPLETE}
                 AND (lease_owner IS NULL OR lease_owner IS NOT DISTINCT FROM $2 OR $2::text IS NULL)`,
          values: [batchId, lease?.worker ?? null],
        },
        {
          text: "UPDATE calls SET status = 'approved' WHERE batch_id = $1 AND call_index = ANY($2::int[])",
          values: [batchId, [...indexes]],
        },
        { text: "UPDATE batches SET status = 'open' WHERE id = $1", values: [batchId] },
      ]),
    );
  }

  /** Runs a guarded write: a guard's division by zero means the batch is no longer this process's. */
  #guarded<T>(batchId: string, write: () => T): T {
    try {
      return write();
    } catch (error) {
      if (error instanceof JournalError && /division by zero/.test(error.message)) throw takenOver(batchId);
      throw error;
    }
  }

  markRunning(batchId: string, index: number, lease?: Lease): void {
    // Only a call that can start (not settled, not done), in a batch nobody settled meanwhile; with a
    // lease, only while this worker holds it (one statement: the check and the mark are one).
    const [r] = this.#ctx.write([
      {
        text: `UPDATE calls SET status = 'running', started_at = $1 WHERE batch_id = $2 AND call_index = $3
                 AND status IN ('planned', 'approved', 'running')
                 AND EXISTS (SELECT 1 FROM batches WHERE id = $2 AND status IN ${INCOMPLETE}
                   AND ($4::text IS NULL OR (lease_owner = $4 AND lease_expires >= ${NOW_MS})))`,
        values: [Date.now(), batchId, index, lease?.worker ?? null],
      },
    ]);
    if (r?.rowCount === 0) throw lease ? leaseLost(batchId, lease.worker) : notStartable(batchId, index);
  }

  markNotStarted(batchId: string, index: number): void {
    this.#ctx.write([
      { text: 'SELECT 1 FROM batches WHERE id = $1 FOR UPDATE', values: [batchId] },
      {
        text: `UPDATE calls SET status = 'planned', started_at = NULL WHERE batch_id = $1 AND call_index = $2 AND status = 'running'`,
        values: [batchId, index],
      },
    ]);
  }

  giveUp(batchId: string, worker?: string): void {
    markGivenUp(this.#ctx, batchId, worker);
  }

  #sessionOfBatch(batchId: string): string | undefined {
    if (this.#ctx.sessionOf.has(batchId)) return this.#ctx.sessionOf.get(batchId);
    return this.#ctx.query<{ session_id: string }>('SELECT session_id FROM batches WHERE id = $1', [
      batchId,
    ])[0]?.session_id;
  }

  recordResult(
    batchId: string,
    index: number,
    result: ToolResult,
    status: 'done' | 'denied' | 'unknown' = 'done',
    finish?: { lease?: Lease },
  ): boolean {
    const json = JSON.stringify(result);
    const session = this.#sessionOfBatch(batchId);
    this.#ctx.write([
      // The batch row is locked first, as recovery (resumeBatch, discardBatch) locks it: the other
      // order could deadlock with a recovery running at the same moment (and lose this result).
      { text: 'SELECT 1 FROM batches WHERE id = $1 FOR UPDATE', values: [batchId] },
      {
        text: 'UPDATE calls SET status = $1, result = $2, finished_at = $3 WHERE batch_id = $4 AND call_index = $5',
        values: [status, json, Date.now(), batchId, index],
      },
      ...(session !== undefined ? messageStatements(session, 'tool', result, batchId, result.id, json) : []),
      // The last result completes the batch in the same round trip and transaction.
      ...(finish ? [completeBatch(batchId, finish.lease)] : []),
    ]);
    if (finish) this.#ctx.sessionOf.delete(batchId);
    return finish !== undefined;
  }

  finishBatch(batchId: string, lease?: Lease): void {
    this.#ctx.write([completeBatch(batchId, lease)]);
    this.#ctx.sessionOf.delete(batchId);
  }
}

/** A call marked waiting for a person, with the request it is asked with, and its batch waiting. */
function awaiting(batchId: string, entry: PlanEntry): PgStatement[] {
  return [
    {
      text: "UPDATE calls SET status = 'awaiting_approval', approval = $1 WHERE batch_id = $2 AND call_index = $3",
      values: [JSON.stringify(entry.approval), batchId, entry.index],
    },
    { text: "UPDATE batches SET status = 'awaiting_approval' WHERE id = $1", values: [batchId] },
  ];
}

/** Completes a batch, unless it was settled or taken over by another worker meanwhile. */
function completeBatch(batchId: string, lease: Lease | undefined): PgStatement {
  return {
    text: `UPDATE batches SET status = 'complete', finished_at = $1, lease_expires = NULL
             WHERE id = $2 AND status IN ${INCOMPLETE} AND (lease_owner IS NULL OR lease_owner IS NOT DISTINCT FROM $3)`,
    values: [Date.now(), batchId, lease?.worker ?? null],
  };
}
