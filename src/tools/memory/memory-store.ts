import { createHash } from 'node:crypto';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { makeDirs } from '../../journal/make-dirs.js';
import { openSqlite } from '../../journal/open-sqlite.js';
import { ForeignStateError, prepareOwnDatabase, tightenOwnDatabase } from '../../journal/own-state-files.js';

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
  -- Words are indexed per namespace (memory_fts_<hash>, see ftsTableOf): ranking statistics
  -- (how many entries hold a word) then count one namespace's entries only, never another's.
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

/** The full-text table of one namespace: a hex name, so nothing a user chose reaches SQL text. */
function ftsTableOf(namespace: string): string {
  return `memory_fts_${createHash('sha256').update(namespace).digest('hex').slice(0, 16)}`;
}

const FTS_COLUMNS = "(key, value, content='memory', content_rowid='id', tokenize='porter unicode61')";

/**
 * A store made with one full-text index for every namespace (shared ranking statistics let one
 * user learn which words another's notes hold, from how a search of their own ranks) gets one index
 * per namespace, made from the entries; the entries themselves are untouched.
 */
function splitIndex(db: Database.Database): void {
  const shared = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'memory_fts'");
  if (!shared.get()) return;
  db.transaction(() => {
    // Looked at again under the write lock: another process opening the store may have split it.
    if (!shared.get()) return;
    for (const trigger of ['memory_ai', 'memory_ad', 'memory_au'])
      db.exec(`DROP TRIGGER IF EXISTS ${trigger}`);
    db.exec('DROP TABLE memory_fts');
    const namespaces = db.prepare('SELECT DISTINCT namespace FROM memory').pluck().all() as string[];
    for (const namespace of namespaces) {
      const table = ftsTableOf(namespace);
      db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING fts5${FTS_COLUMNS}`);
      db.prepare(
        `INSERT INTO ${table} (rowid, key, value) SELECT id, key, value FROM memory WHERE namespace = ?`,
      ).run(namespace);
    }
  }).immediate();
}

/**
 * Opens the store and brings it to the current form (WAL, schema, one index per namespace).
 * Several processes doing this at once take turns; SQLite answers some of those turns "database is
 * locked" at once, without waiting (a connection that opened the file before another switched it to
 * WAL), so the whole step is tried again, with growing pauses, for up to 30 s.
 */
function openConverted(file: string): Database.Database {
  const deadline = Date.now() + 30_000;
  for (let pause = 5; ; pause = Math.min(pause * 2, 500)) {
    const db = openSqlite(file);
    try {
      db.pragma('busy_timeout = 30000');
      if (file !== ':memory:') db.pragma('journal_mode = WAL');
      db.exec(SCHEMA);
      splitIndex(db);
      return db;
    } catch (error) {
      db.close();
      const code = (error as { code?: unknown }).code;
      const busy = typeof code === 'string' && /^SQLITE_(?:BUSY|LOCKED)/.test(code);
      if (!busy || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause); // open is synchronous
    }
  }
}

/** The statements that touch one namespace's full-text table. */
function ftsStatements(db: Database.Database, table: string) {
  return {
    add: db.prepare(`INSERT INTO ${table} (rowid, key, value) VALUES (?, ?, ?)`),
    remove: db.prepare(`INSERT INTO ${table} (${table}, rowid, key, value) VALUES ('delete', ?, ?, ?)`),
    search: db.prepare(
      `SELECT m.id, m.key, m.value, m.updated_at, bm25(${table}) AS rank FROM ${table}
       JOIN memory m ON m.id = ${table}.rowid
       WHERE ${table} MATCH ? AND m.namespace = ? ORDER BY rank LIMIT ?`,
    ),
  };
}

type FtsStatements = ReturnType<typeof ftsStatements>;

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
    this.#stmt = {
      get: db.prepare('SELECT key, value, updated_at FROM memory WHERE namespace = ? AND key = ?'),
      set: db.prepare(
        `INSERT INTO memory (namespace, key, value, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
         RETURNING id`,
      ),
      old: db.prepare('SELECT id, key, value FROM memory WHERE namespace = ? AND key = ?'),
      delete: db.prepare('DELETE FROM memory WHERE id = ?'),
      keys: db.prepare('SELECT key FROM memory WHERE namespace = ? ORDER BY key'),
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
      // Private from the start (it holds what a model saved), and this user's: a store, side file
      // or folder another user made would let them read and plant memories (issue #30).
      try {
        prepareOwnDatabase(file, 'the memory store');
      } catch (error) {
        // The message may reach the model: the root's own path is left out (.toolgate/memory.db).
        if (error instanceof ForeignStateError)
          throw new ForeignStateError(
            error.message.replaceAll(`${path.dirname(path.dirname(file))}${path.sep}`, ''),
          );
        throw error;
      }
    }
    const store = new SqliteMemoryStore(openConverted(file));
    if (file !== ':memory:') tightenOwnDatabase(file);
    return store;
  }

  get(namespace: string, key: string): MemoryEntry | undefined {
    const row = this.#stmt.get.get(namespace, key) as
      | { key: string; value: string; updated_at: number }
      | undefined;
    return row ? { key: row.key, value: row.value, updatedAt: row.updated_at } : undefined;
  }

  set(namespace: string, key: string, value: string): void {
    this.#db
      .transaction(() => {
        const fts = this.#fts(namespace, true) as FtsStatements;
        const old = this.#stmt.old.get(namespace, key) as
          | { id: number; key: string; value: string }
          | undefined;
        const { id } = this.#stmt.set.get(namespace, key, value, Date.now()) as { id: number };
        if (old) fts.remove.run(old.id, old.key, old.value);
        fts.add.run(id, key, value);
      })
      .immediate();
    this.#writes++;
  }

  delete(namespace: string, key: string): boolean {
    this.#writes++;
    return this.#db
      .transaction(() => {
        const old = this.#stmt.old.get(namespace, key) as
          | { id: number; key: string; value: string }
          | undefined;
        if (!old) return false;
        this.#stmt.delete.run(old.id);
        this.#fts(namespace, false)?.remove.run(old.id, old.key, old.value);
        return true;
      })
      .immediate();
  }

  /** The namespace's full-text statements; its table is made on the first write (`create`). */
  #fts(namespace: string, create: boolean): FtsStatements | undefined {
    const table = ftsTableOf(namespace);
    const known = this.#ftsTables.get(table);
    if (known) return known;
    const exists = this.#db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(table) !== undefined;
    if (!exists && !create) return undefined;
    if (!exists) this.#db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING fts5${FTS_COLUMNS}`);
    const statements = ftsStatements(this.#db, table);
    this.#ftsTables.set(table, statements);
    return statements;
  }

  readonly #ftsTables = new Map<string, FtsStatements>();

  keys(namespace: string): string[] {
    return (this.#stmt.keys.all(namespace) as { key: string }[]).map((r) => r.key);
  }

  /** Best matches first (BM25); `score` is higher for better matches. */
  search(namespace: string, query: string, limit: number): (IndexedEntry & { score: number })[] {
    const match = ftsQuery(query);
    if (!match) return [];
    const fts = this.#fts(namespace, false);
    if (!fts) return [];
    const rows = fts.search.all(match, namespace, limit) as (Row & { rank: number })[];
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
