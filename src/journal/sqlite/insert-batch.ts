import type { ToolCall } from '../../core/tool-call.js';
import { batchMessages } from '../common/batch-messages.js';
import {
  type BatchRow,
  type CallRow,
  decisionJson,
  leaseLost,
  notStartable,
  takenOver,
} from '../journal-records.js';
import type { BeginBatchOptions, FinishedCall, Lease, PlanEntry } from '../journal-types.js';
import type { SqliteContext } from './sqlite-context.js';
import type { Statements } from './statements.js';

/**
 * Inside a write: the batch, its calls (with their decisions) and the assistant message; with
 * `finished`, each call's result and `tool` message too, and the batch complete: then each row is
 * written once. Begun (beginBatch), recorded finished in place, or folded from a staged line.
 */
export function insertBatch(
  ctx: SqliteContext,
  id: string,
  session: string,
  calls: readonly ToolCall[],
  options: BeginBatchOptions,
  now: number,
  finished?: readonly FinishedCall[],
  owner = ctx.owner,
): void {
  const stmt = ctx.stmt;
  stmt.ensureSession.run(session, now);
  // Calls already journaled while streaming (recordStreamedCall) are kept; the rest are added.
  const existing = options.batchId === undefined ? undefined : (stmt.batch.get(id) as BatchRow | undefined);
  const streamed = existing !== undefined;
  // Begun over calls journaled while streaming: only if nobody settled or took the batch meanwhile.
  if (
    existing &&
    (existing.status !== 'open' || (existing.lease_owner && existing.lease_owner !== options.lease?.worker))
  )
    throw takenOver(id);
  const text = options.assistantText ?? null;
  if (streamed) stmt.setAssistantText.run(text, id);
  else if (finished) stmt.insertFinishedBatch.run(id, session, text, now, now, owner);
  else stmt.insertBatch.run(id, session, 'open', text, now, owner, ctx.seals.batchSeal(id, session, now));
  if (options.lease && !finished) stmt.setLease.run(options.lease.worker, now + options.lease.ttlMs, id);
  const running = finished ? undefined : options.running;
  const known = streamed ? new Set((stmt.calls.all(id) as CallRow[]).map((c) => c.call_index)) : undefined;
  const plan = new Map((options.plan ?? []).map((e) => [e.index, e]));
  const resultJson = finished?.map((f) => JSON.stringify(f.result));
  for (const [index, call] of calls.entries()) {
    if (known?.has(index)) continue;
    const decision = decisionJson(plan.get(index));
    const f = finished?.[index];
    if (f) {
      stmt.insertFinishedCall.run({
        batch: id,
        index,
        callId: call.id,
        name: call.name,
        args: JSON.stringify(call.arguments),
        status: f.status,
        decision,
        result: resultJson?.[index] ?? null,
        started: f.startedAt ?? null,
        finished: f.finishedAt,
      });
    } else {
      stmt.insertCall.run(id, index, call.id, call.name, JSON.stringify(call.arguments), decision);
    }
  }
  for (const entry of options.plan ?? []) {
    // New calls got their decision as they were inserted; streamed ones get it now.
    if (known?.has(entry.index)) applyPlan(stmt, id, entry);
    else if (entry.approval && !finished)
      applyPlan(stmt, id, { index: entry.index, approval: entry.approval });
  }
  // The first call starts at once: `running` in this same commit (one commit fewer before it).
  if (running !== undefined) setRunning(stmt, id, running, options.lease, now);
  for (const m of batchMessages(options, text, calls, finished, resultJson))
    ctx.message(session, m.role, m.content, id, m.callId, m.json);
}

/** Inside a write: a call's decision, and for one that must be asked, its request (the batch waits). */
export function applyPlan(stmt: Statements, batchId: string, entry: PlanEntry): void {
  const value = decisionJson(entry);
  if (value !== null) stmt.setDecision.run(value, batchId, entry.index);
  if (entry.approval) {
    stmt.setAwaiting.run(JSON.stringify(entry.approval), batchId, entry.index);
    stmt.setBatchStatus.run('awaiting_approval', batchId);
  }
}

/** Inside a write: the call is running now, if its batch may still run it (and this worker holds it). */
export function setRunning(
  stmt: Statements,
  batchId: string,
  index: number,
  lease: Lease | undefined,
  now: number,
): void {
  if (!lease) {
    if (stmt.setRunning.run(now, batchId, index).changes === 0) throw notStartable(batchId, index);
    return;
  }
  const changed = stmt.setRunningLeased.run({ now, batch: batchId, index, worker: lease.worker }).changes;
  if (changed === 0) throw leaseLost(batchId, lease.worker);
}
