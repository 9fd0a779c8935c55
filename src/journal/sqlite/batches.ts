import { randomUUID } from 'node:crypto';
import type { ToolCall } from '../../core/tool-call.js';
import type { ToolResult } from '../../core/tool-result.js';
import { type BatchRow, leaseLost, takenOver } from '../journal-records.js';
import type { BeginBatchOptions, FinishedCall, Lease, PlanEntry } from '../journal-types.js';
import type { BatchLog } from '../roles/batch-log.js';
import { applyPlan, insertBatch, setRunning } from './insert-batch.js';
import type { SqliteContext } from './sqlite-context.js';
import type { Staging } from './staging.js';

/** The batch log's writes (where it is, `sync` and `atOneMoment` are the journal's own). */
type BatchWrites = Omit<
  BatchLog,
  'location' | 'file' | 'durableCommits' | 'beginsRunning' | 'atOneMoment' | 'sync'
>;

/**
 * The batch log on SQLite: every batch and call, each decision, start and result, one write
 * transaction each; a finished read-only batch is staged instead (staging.ts), on disk before
 * anyone sees a result, and folded into batches and calls off the reply's path.
 */
export class SqliteBatchLog implements BatchWrites {
  readonly #ctx: SqliteContext;
  readonly #staging: Staging;
  /**
   * Set for good once a second session records here, or a batch is recorded while another is open
   * (MCP sessions over HTTP, a library serving several agents): other calls then share this event
   * loop, most of them read-only and so never an open batch, and a flush must not stop them.
   */
  #concurrent = false;
  #firstSession: string | undefined;

  constructor(ctx: SqliteContext, staging: Staging) {
    this.#ctx = ctx;
    this.#staging = staging;
  }

  /** Whether other sessions or batches share this journal (see #concurrent). */
  get concurrent(): boolean {
    return this.#concurrent;
  }

  /** Notes who records here (see #concurrent). */
  #noteSession(session: string): void {
    if (this.#concurrent) return;
    this.#firstSession ??= session;
    if (session !== this.#firstSession || this.#ctx.sessionOf.size > 0) this.#concurrent = true;
  }

  beginBatch(session: string, calls: readonly ToolCall[], options: BeginBatchOptions = {}): string {
    this.#noteSession(session);
    const id = options.batchId ?? randomUUID();
    this.#ctx.write(() => insertBatch(this.#ctx, id, session, calls, options, Date.now()));
    this.#ctx.sessionOf.set(id, options.messages === false ? undefined : session);
    return id;
  }

  recordFinishedBatch(
    session: string,
    calls: readonly ToolCall[],
    finished: readonly FinishedCall[],
    options: BeginBatchOptions = {},
  ): string {
    this.#noteSession(session);
    const now = Date.now();
    if (options.batchId !== undefined) {
      // Begun over calls journaled while streaming: its rows exist, so it is finished in place.
      const id = options.batchId;
      this.#ctx.write(() => insertBatch(this.#ctx, id, session, calls, options, now, finished));
      return id;
    }
    // One row in one commit before anyone sees a result; batches and calls get it off the reply's path.
    const id = randomUUID();
    this.#staging.stage({ id, session, calls, finished, options, now, owner: this.#ctx.owner });
    return id;
  }

  recordStreamedCall(session: string, batchId: string, index: number, call: ToolCall, lease?: Lease): void {
    const now = Date.now();
    const ctx = this.#ctx;
    ctx.write(() => {
      ctx.stmt.ensureSession.run(session, now);
      if (!ctx.stmt.batch.get(batchId)) {
        ctx.stmt.insertBatch.run(
          batchId,
          session,
          'open',
          null,
          now,
          ctx.owner,
          ctx.seals.batchSeal(batchId, session, now),
        );
        // Held while the model is still writing the rest: no one takes over a batch still streaming.
        if (lease) ctx.stmt.setLease.run(lease.worker, now + lease.ttlMs, batchId);
      }
      ctx.stmt.insertCall.run(batchId, index, call.id, call.name, JSON.stringify(call.arguments), null);
    });
  }

  /** Re-planning a pending batch (after a restart) records today's decisions over the old ones. */
  replan(batchId: string, plan: readonly PlanEntry[]): void {
    this.#ctx.write(() => {
      for (const entry of plan) applyPlan(this.#ctx.stmt, batchId, entry);
    });
  }

  markApproved(batchId: string, indexes: readonly number[], lease?: Lease): void {
    const stmt = this.#ctx.stmt;
    this.#ctx.write(() => {
      const row = stmt.batch.get(batchId) as BatchRow | undefined;
      if (!row || (row.status !== 'open' && row.status !== 'awaiting_approval')) throw takenOver(batchId);
      if (lease && row.lease_owner && row.lease_owner !== lease.worker)
        throw leaseLost(batchId, lease.worker);
      for (const index of indexes) stmt.setStatus.run('approved', batchId, index);
      stmt.setBatchStatus.run('open', batchId);
    });
  }

  markRunning(batchId: string, index: number, lease?: Lease): void {
    this.#ctx.write(() => setRunning(this.#ctx.stmt, batchId, index, lease, Date.now()));
  }

  markNotStarted(batchId: string, index: number): void {
    this.#ctx.write(() => this.#ctx.stmt.setNotStarted.run(batchId, index));
  }

  recordResult(
    batchId: string,
    index: number,
    result: ToolResult,
    status: 'done' | 'denied' | 'unknown' = 'done',
    finish?: { lease?: Lease },
  ): boolean {
    const ctx = this.#ctx;
    const completed = ctx.write(() => {
      const json = JSON.stringify(result);
      ctx.stmt.setResult.run(status, json, Date.now(), batchId, index);
      const session = ctx.sessionOf.has(batchId)
        ? ctx.sessionOf.get(batchId)
        : (ctx.stmt.batch.get(batchId) as BatchRow | undefined)?.session_id;
      if (session !== undefined) ctx.message(session, 'tool', result, batchId, result.id, json);
      if (!finish) return false;
      try {
        this.#complete(batchId, finish.lease);
        return true;
      } catch {
        // The result is what must be committed; finishBatch is tried again after (as before).
        return false;
      }
    });
    if (completed) ctx.sessionOf.delete(batchId);
    return completed;
  }

  finishBatch(batchId: string, lease?: Lease): void {
    this.#ctx.write(() => this.#complete(batchId, lease));
    this.#ctx.sessionOf.delete(batchId);
  }

  #complete(batchId: string, lease: Lease | undefined): void {
    this.#ctx.stmt.completeBatch.run({ now: Date.now(), batch: batchId, worker: lease?.worker ?? null });
  }
}
