import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { makeDirs } from '../../journal/make-dirs.js';

export interface MemoryEntry {
  key: string;
  value: string;
  /** ms since the epoch */
  updatedAt: number;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS memory (
    id INTEGER PRIMARY KEY,
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (namespace, key)
  );
  CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(key, value, content='memory', content_rowid='id');
  CREATE TRIGGER IF NOT EXISTS memory_ai AFTER INSERT ON memory BEGIN
    INSERT INTO memory_fts(rowid, key, value) VALUES (new.id, new.key, new.value);
  END;
  CREATE TRIGGER IF NOT EXISTS memory_ad AFTER DELETE ON memory BEGIN
    INSERT INTO memory_fts(memory_fts, rowid, key, value) VALUES ('delete', old.id, old.key, old.value);
  END;
  CREATE TRIGGER IF NOT EXISTS memory_au AFTER UPDATE ON memory BEGIN
    INSERT INTO memory_fts(memory_fts, rowid, key, value) VALUES ('delete', old.id, old.key, old.value);
    INSERT INTO memory_fts(rowid, key, value) VALUES (new.id, new.key, new.value);
  END;
`;

/** Words of a query as an FTS5 expression of quoted terms (OR): no user text is read as FTS syntax. */
export function ftsQuery(query: string): string | undefined {
  const words = query.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) return undefined;
  return words.map((w) => `"${w}"`).join(' OR ');
}

/**
 * The memory tool's store (issue #15): key → value per namespace, with a full-text index (FTS5,
 * ranked by BM25) over keys and values. Its own SQLite file (default `.toolgate/memory.db` under the
 * first root, a directory no tool may read), apart from the journal: memory outlives sessions.
 */
export class SqliteMemoryStore {
  readonly #db: Database.Database;
  readonly #stmt;

  private constructor(db: Database.Database) {
    this.#db = db;
    db.exec(SCHEMA);
    this.#stmt = {
      get: db.prepare('SELECT key, value, updated_at FROM memory WHERE namespace = ? AND key = ?'),
      set: db.prepare(
        `INSERT INTO memory (namespace, key, value, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      ),
      delete: db.prepare('DELETE FROM memory WHERE namespace = ? AND key = ?'),
      keys: db.prepare('SELECT key FROM memory WHERE namespace = ? ORDER BY key'),
      search: db.prepare(
        `SELECT m.key, m.value, m.updated_at, bm25(memory_fts) AS rank FROM memory_fts
         JOIN memory m ON m.id = memory_fts.rowid
         WHERE memory_fts MATCH ? AND m.namespace = ? ORDER BY rank LIMIT ?`,
      ),
    };
  }

  static open(file: string): SqliteMemoryStore {
    if (file !== ':memory:') {
      makeDirs(path.dirname(file));
      closeSync(openSync(file, 'a', 0o600)); // private from the start: it holds what a model saved
    }
    const db = new Database(file);
    db.pragma('busy_timeout = 5000');
    if (file !== ':memory:') db.pragma('journal_mode = WAL');
    return new SqliteMemoryStore(db);
  }

  get(namespace: string, key: string): MemoryEntry | undefined {
    const row = this.#stmt.get.get(namespace, key) as
      | { key: string; value: string; updated_at: number }
      | undefined;
    return row ? { key: row.key, value: row.value, updatedAt: row.updated_at } : undefined;
  }

  set(namespace: string, key: string, value: string): void {
    this.#stmt.set.run(namespace, key, value, Date.now());
  }

  delete(namespace: string, key: string): boolean {
    return this.#stmt.delete.run(namespace, key).changes > 0;
  }

  keys(namespace: string): string[] {
    return (this.#stmt.keys.all(namespace) as { key: string }[]).map((r) => r.key);
  }

  /** Best matches first (BM25); `score` is higher for better matches. */
  search(namespace: string, query: string, limit: number): (MemoryEntry & { score: number })[] {
    const match = ftsQuery(query);
    if (!match) return [];
    const rows = this.#stmt.search.all(match, namespace, limit) as {
      key: string;
      value: string;
      updated_at: number;
      rank: number;
    }[];
    return rows.map((r) => ({ key: r.key, value: r.value, updatedAt: r.updated_at, score: -r.rank }));
  }

  close(): void {
    this.#db.close();
  }
}
