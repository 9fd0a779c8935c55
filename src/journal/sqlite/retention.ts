import { type ExportRow, exportedCall } from '../journal-records.js';
import type { ExportedCall } from '../journal-types.js';
import type { Retention } from '../roles/retention.js';
import type { SqliteContext } from './sqlite-context.js';

/**
 * Retention and export on SQLite: complete batches older than a time pruned with their calls and
 * conversation messages (never an open batch or one waiting for approval); calls exported for audit.
 */
export class SqliteRetention implements Retention {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  prune(
    before: number,
    maxBatches = Number.MAX_SAFE_INTEGER,
  ): { batches: number; calls: number; messages: number } {
    const stmt = this.#ctx.stmt;
    this.#ctx.foldForRead();
    const oldest = stmt.oldestComplete.get() as number | undefined;
    if (oldest === undefined || oldest >= before) return { batches: 0, calls: 0, messages: 0 };
    return this.#ctx.write(() => {
      let batches = 0;
      let calls = 0;
      for (const { id } of stmt.prunable.all(before, maxBatches) as { id: string }[]) {
        calls += stmt.pruneCalls.run(id).changes;
        batches += stmt.pruneBatch.run(id).changes;
      }
      const messages = stmt.pruneMessages.run(before).changes;
      stmt.pruneAnswers.run();
      return { batches, calls, messages };
    });
  }

  *exportCalls(since: number): Generator<ExportedCall> {
    this.#ctx.foldForRead();
    for (const row of this.#ctx.stmt.exportCalls.iterate(since) as Iterable<ExportRow>)
      yield exportedCall(row);
  }
}
