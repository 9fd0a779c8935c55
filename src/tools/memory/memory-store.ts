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
  CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(key, value, content='memory', content_rowid='id', tokenize='porter unicode61');
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
  -- Embeddings (hybrid search): one unit vector per entry and model, dropped when its text changes.
  -- A rowid table: its (id, model) index stays small, so "which entries lack a vector" never
  -- reads the vectors themselves.
  CREATE TABLE IF NOT EXISTS memory_vectors (
    id INTEGER NOT NULL,
    model TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (id, model)
  );
  CREATE TRIGGER IF NOT EXISTS memory_vectors_ad AFTER DELETE ON memory BEGIN
    DELETE FROM memory_vectors WHERE id = old.id;
  END;
  CREATE TRIGGER IF NOT EXISTS memory_vectors_au AFTER UPDATE OF value ON memory
    WHEN old.value IS NOT new.value BEGIN
    DELETE FROM memory_vectors WHERE id = old.id;
  END;
`;

/** An entry as search sees it: its row id ties it to its vector. */
export interface IndexedEntry extends MemoryEntry {
  id: number;
}

type Row = { id: number; key: string; value: string; updated_at: number };
const entry = (r: Row): IndexedEntry => ({ id: r.id, key: r.key, value: r.value, updatedAt: r.updated_at });

/**
 * A store made before the index stemmed words ("builds" found by "build") gets the stemming index,
 * rebuilt from the entries; the entries themselves are untouched.
 */
function stemmedIndex(db: Database.Database): void {
  const row = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'memory_fts'").get() as
    | { sql: string }
    | undefined;
  if (!row || row.sql.includes('porter')) return;
  db.transaction(() => {
    db.exec('DROP TABLE memory_fts');
    db.exec(SCHEMA);
    db.exec("INSERT INTO memory_fts(memory_fts) VALUES ('rebuild')");
  })();
}

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
  /** This connection's own writes (data_version counts only other connections'). */
  #writes = 0;

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
        `SELECT m.id, m.key, m.value, m.updated_at, bm25(memory_fts) AS rank FROM memory_fts
         JOIN memory m ON m.id = memory_fts.rowid
         WHERE memory_fts MATCH ? AND m.namespace = ? ORDER BY rank LIMIT ?`,
      ),
      vectors: db.prepare(
        `SELECT m.id, m.key, m.value, m.updated_at, v.vector FROM memory m
         JOIN memory_vectors v ON v.id = m.id AND v.model = ? WHERE m.namespace = ?`,
      ),
      unembedded: db.prepare(
        `SELECT m.id, m.value FROM memory m WHERE m.namespace = ? AND NOT EXISTS
           (SELECT 1 FROM memory_vectors v WHERE v.id = m.id AND v.model = ?) ORDER BY m.id LIMIT ?`,
      ),
      // Only while the text is the one embedded: a vector never lands on a changed entry.
      putVector: db.prepare(
        `INSERT OR REPLACE INTO memory_vectors (id, model, vector)
         SELECT id, ?, ? FROM memory WHERE id = ? AND value = ?`,
      ),
      idOf: db.prepare('SELECT id FROM memory WHERE namespace = ? AND key = ?'),
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
    stemmedIndex(db);
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
    this.#writes++;
  }

  delete(namespace: string, key: string): boolean {
    this.#writes++;
    return this.#stmt.delete.run(namespace, key).changes > 0;
  }

  keys(namespace: string): string[] {
    return (this.#stmt.keys.all(namespace) as { key: string }[]).map((r) => r.key);
  }

  /** Best matches first (BM25); `score` is higher for better matches. */
  search(namespace: string, query: string, limit: number): (IndexedEntry & { score: number })[] {
    const match = ftsQuery(query);
    if (!match) return [];
    const rows = this.#stmt.search.all(match, namespace, limit) as (Row & { rank: number })[];
    return rows.map((r) => ({ ...entry(r), score: -r.rank }));
  }

  /** The entry's row id, or undefined when nothing is stored under `key`. */
  idOf(namespace: string, key: string): number | undefined {
    return (this.#stmt.idOf.get(namespace, key) as { id: number } | undefined)?.id;
  }

  /** Every entry of the namespace that has a vector from `model`, with that vector. */
  withVectors(namespace: string, model: string): (IndexedEntry & { vector: Float32Array })[] {
    const rows = this.#stmt.vectors.all(model, namespace) as (Row & { vector: Buffer })[];
    return rows.map((r) => ({
      ...entry(r),
      vector: new Float32Array(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength / 4),
    }));
  }

  /** Entries with no vector from `model` yet (saved before embeddings were configured, or whose embedding failed). */
  unembedded(namespace: string, model: string, limit: number): { id: number; value: string }[] {
    return this.#stmt.unembedded.all(namespace, model, limit) as { id: number; value: string }[];
  }

  /** Keeps `vector` for the entry, unless its text is no longer `text` (changed meanwhile). */
  putVector(id: number, model: string, text: string, vector: Float32Array): void {
    this.#stmt.putVector.run(
      model,
      Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength),
      id,
      text,
    );
    this.#writes++;
  }

  /** Changes whenever anyone commits to the store, this connection or another: cached vectors are then stale. */
  generation(): string {
    return `${this.#db.pragma('data_version', { simple: true })}:${this.#writes}`;
  }

  close(): void {
    this.#db.close();
  }
}
