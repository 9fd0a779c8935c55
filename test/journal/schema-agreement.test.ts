import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePg, PG_MIGRATIONS, PG_SCHEMA_VERSION } from '../../src/journal/postgres/pg-schema.js';
import { PostgresJournal } from '../../src/journal/postgres/postgres-journal.js';
import { SyncPg } from '../../src/journal/postgres/sync-pg.js';
import { type ColumnType, type Dialect, inDialect } from '../../src/journal/schema/table-description.js';
import { JOURNAL_SCHEMA_VERSIONS, JOURNAL_TABLES } from '../../src/journal/schema/tables.js';
import { migrate, SCHEMA_VERSION, SQLITE_MIGRATIONS } from '../../src/journal/schema.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { type PgServer, startPostgres } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue #32: the journal's schema is written once (src/journal/schema/tables.ts). A new SQLite
 * journal and a new PostgreSQL one are read back from the databases themselves (PRAGMAs,
 * PostgreSQL's catalogs) and must be what the description says, agree with each other but for
 * what the description names as one dialect's own, and carry the version it describes; a journal
 * an older toolgate made, at every older version, must migrate to exactly what a new one is.
 * The version bookkeeping (SQLite's user_version, PostgreSQL's toolgate_schema) is no table of
 * the journal's.
 */

interface ColumnShape {
  name: string;
  type: string;
  notNull: boolean;
  default: string | null;
}
interface IndexShape {
  columns: string[];
  unique: boolean;
  where: string | null;
}
interface TableShape {
  columns: ColumnShape[];
  primaryKey: string[];
  unique: string[][];
  /** `column -> table(column)` */
  references: string[];
  /** `column: condition` */
  checks: string[];
  indexes: Record<string, IndexShape>;
}
type SchemaShape = Record<string, TableShape>;

/** How each dialect reports a described type: SQLite's declared type, PostgreSQL's data_type. */
const STORED: Record<Dialect, Record<ColumnType, string>> = {
  sqlite: {
    text: 'TEXT',
    json: 'TEXT',
    integer: 'INTEGER',
    bigint: 'INTEGER',
    boolean: 'INTEGER',
    serial: 'INTEGER',
  },
  postgres: {
    text: 'text',
    json: 'text',
    integer: 'integer',
    bigint: 'bigint',
    boolean: 'boolean',
    serial: 'bigint',
  },
};

/** The index of the parenthesis that closes the one at `open`. */
function closing(text: string, open: number): number {
  let depth = 0;
  let quoted = false;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === "'") quoted = !quoted;
    else if (!quoted && ch === '(') depth++;
    else if (!quoted && ch === ')' && --depth === 0) return i;
  }
  return -1;
}

/**
 * A condition as both dialects can be compared on: PostgreSQL's `x = ANY (ARRAY['a'::text, …])`
 * read back as the `x IN ('a', …)` it was written as, spacing and wrapping parentheses dropped.
 */
function condition(text: string): string {
  let s = text
    .replace(/::text/g, '')
    .replace(/(\w+) = ANY \(ARRAY\[(.*?)\]\)/g, '$1 IN ($2)')
    .replace(/\s+/g, ' ')
    .replace(/\(\s+/g, '(')
    .replace(/\s+\)/g, ')')
    .replace(/\s*,\s*/g, ', ')
    .trim();
  while (s.startsWith('(') && closing(s, 0) === s.length - 1) s = s.slice(1, -1).trim();
  return s;
}

/** The CHECK conditions of a CREATE TABLE, each with the column it is written on. */
function sqliteChecks(sql: string): string[] {
  const body = sql.slice(sql.indexOf('(') + 1, closing(sql, sql.indexOf('(')));
  const definitions: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '(') depth++;
    else if (body[i] === ')') depth--;
    else if (body[i] === ',' && depth === 0) {
      definitions.push(body.slice(start, i));
      start = i + 1;
    }
  }
  definitions.push(body.slice(start));
  const checks: string[] = [];
  for (const definition of definitions) {
    const at = definition.search(/\bCHECK\s*\(/i);
    if (at < 0) continue;
    const open = definition.indexOf('(', at);
    const column = definition.trim().split(/\s+/)[0];
    checks.push(`${column}: ${condition(definition.slice(open + 1, closing(definition, open)))}`);
  }
  return checks.sort();
}

/** A SQLite journal's schema, as SQLite reports it. */
function sqliteShape(db: Database.Database): SchemaShape {
  const shape: SchemaShape = {};
  const tables = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all() as { name: string; sql: string }[];
  for (const { name, sql } of tables) {
    const info = db.pragma(`table_info(${name})`) as {
      name: string;
      type: string;
      notnull: number;
      dflt_value: string | null;
      pk: number;
    }[];
    const indexNames = db.pragma(`index_list(${name})`) as { name: string; unique: number; origin: string }[];
    const columnsOf = (index: string) =>
      (db.pragma(`index_info(${index})`) as { seqno: number; name: string }[])
        .sort((a, b) => a.seqno - b.seqno)
        .map((c) => c.name);
    const indexes: Record<string, IndexShape> = {};
    for (const index of indexNames.filter((i) => i.origin === 'c')) {
      const indexSql = (
        db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(index.name) as { sql: string }
      ).sql;
      const where = /\bWHERE\b/i.exec(indexSql);
      indexes[index.name] = {
        columns: columnsOf(index.name),
        unique: index.unique === 1,
        where: where ? condition(indexSql.slice(where.index + 5)) : null,
      };
    }
    shape[name] = {
      columns: info.map((c) => ({
        name: c.name,
        type: c.type,
        notNull: c.notnull === 1,
        default: c.dflt_value,
      })),
      primaryKey: info
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name),
      unique: indexNames
        .filter((i) => i.origin === 'u')
        .map((i) => columnsOf(i.name))
        .sort(),
      references: (db.pragma(`foreign_key_list(${name})`) as { from: string; table: string; to: string }[])
        .map((f) => `${f.from} -> ${f.table}(${f.to})`)
        .sort(),
      checks: sqliteChecks(sql),
      indexes,
    };
  }
  return shape;
}

/** A PostgreSQL journal's schema, as its catalogs report it. */
function pgShape(pg: SyncPg): SchemaShape {
  const shape: SchemaShape = {};
  const tables = pg.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'toolgate_schema'",
  ).rows;
  const names = (key: string, table: string) =>
    `ARRAY(SELECT a.attname::text FROM unnest(${key}) WITH ORDINALITY k(attnum, n)
           JOIN pg_attribute a ON a.attrelid = ${table} AND a.attnum = k.attnum ORDER BY k.n)`;
  const constraints = pg.query<{
    tbl: string;
    type: string;
    def: string;
    columns: string[];
    ref: string;
    refs: string[];
  }>(
    `SELECT c.conrelid::regclass::text AS tbl, c.contype AS type, pg_get_constraintdef(c.oid) AS def,
            ${names('c.conkey', 'c.conrelid')} AS columns,
            c.confrelid::regclass::text AS ref, ${names('c.confkey', 'c.confrelid')} AS refs
     FROM pg_constraint c WHERE c.connamespace = 'public'::regnamespace`,
  ).rows;
  const indexes = pg.query<{
    tbl: string;
    name: string;
    unique: boolean;
    where: string | null;
    columns: string[];
  }>(
    `SELECT t.relname AS tbl, c.relname AS name, i.indisunique AS unique, pg_get_expr(i.indpred, i.indrelid) AS where,
            ${names('i.indkey::int2[]', 'i.indrelid')} AS columns
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
     WHERE t.relnamespace = 'public'::regnamespace
       AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u'))`,
  ).rows;
  for (const { name } of tables) {
    const own = constraints.filter((c) => c.tbl === name);
    shape[name] = {
      columns: pg
        .query<{ name: string; type: string; nullable: string; default: string | null }>(
          `SELECT column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS default
           FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
          [name],
        )
        .rows.map((c) => ({ name: c.name, type: c.type, notNull: c.nullable === 'NO', default: c.default })),
      primaryKey: own.find((c) => c.type === 'p')?.columns ?? [],
      unique: own
        .filter((c) => c.type === 'u')
        .map((c) => c.columns)
        .sort(),
      references: own
        .filter((c) => c.type === 'f')
        .map((c) => `${c.columns.join(', ')} -> ${c.ref}(${c.refs.join(', ')})`)
        .sort(),
      checks: own
        .filter((c) => c.type === 'c')
        .map((c) => `${c.columns.join(', ')}: ${condition(c.def.replace(/^CHECK /, ''))}`)
        .sort(),
      indexes: Object.fromEntries(
        indexes
          .filter((i) => i.tbl === name)
          .map((i) => [
            i.name,
            { columns: i.columns, unique: i.unique, where: i.where === null ? null : condition(i.where) },
          ]),
      ),
    };
  }
  return shape;
}

/** What the description says a new journal of this dialect holds, as that dialect reports it. */
function describedShape(dialect: Dialect): SchemaShape {
  const shape: SchemaShape = {};
  for (const table of JOURNAL_TABLES.filter((t) => inDialect(t, dialect))) {
    const key = table.primaryKey ?? [];
    const columns = table.columns.filter((c) => inDialect(c, dialect));
    shape[table.name] = {
      columns: columns.map((c) => ({
        name: c.name,
        type: STORED[dialect][c.type],
        // PostgreSQL holds a key's columns and a serial's NOT NULL; SQLite keeps what was written.
        notNull:
          dialect === 'postgres'
            ? Boolean(c.notNull) || key.includes(c.name) || c.type === 'serial'
            : Boolean(c.notNull),
        default:
          dialect === 'postgres' && c.type === 'serial'
            ? `nextval('${table.name}_${c.name}_seq'::regclass)`
            : (c.default ?? null),
      })),
      primaryKey: [...key],
      unique: columns.filter((c) => c.unique).map((c) => [c.name]),
      references: columns.flatMap((c) =>
        c.references ? [`${c.name} -> ${c.references.table}(${c.references.column})`] : [],
      ),
      checks: columns.flatMap((c) => (c.check ? [`${c.name}: ${condition(c.check)}`] : [])).sort(),
      indexes: Object.fromEntries(
        (table.indexes ?? [])
          .filter((i) => inDialect(i, dialect) && i.madeOnFirstUseIn !== dialect)
          .map((i) => [
            i.name,
            { columns: [...i.columns], unique: false, where: i.where ? condition(i.where) : null },
          ]),
      ),
    };
  }
  return shape;
}

/**
 * A dialect's schema without what the description names as that dialect's own, in words both
 * share: SQLite's type names; a key's columns not null; a column the database numbers (PostgreSQL's
 * sequence, SQLite's INTEGER PRIMARY KEY) marked as such. What is left must be the same in both.
 */
function sharedPart(shape: SchemaShape, dialect: Dialect) {
  const own = <T extends { name: string; only?: Dialect }>(items: readonly T[] | undefined, name: string) =>
    items?.find((i) => i.name === name)?.only === dialect;
  const shared: Record<string, unknown> = {};
  for (const [name, table] of Object.entries(shape)) {
    if (own(JOURNAL_TABLES, name)) continue;
    const described = JOURNAL_TABLES.find((t) => t.name === name);
    const columns = table.columns.filter((c) => !own(described?.columns, c.name));
    const kept = new Set(columns.map((c) => c.name));
    shared[name] = {
      ...table,
      columns: columns.map((c) => {
        const wholeKey = table.primaryKey.length === 1 && table.primaryKey[0] === c.name;
        const numbered =
          dialect === 'postgres'
            ? Boolean(c.default?.startsWith('nextval('))
            : c.type === 'INTEGER' && wholeKey;
        return {
          name: c.name,
          type: dialect === 'postgres' ? (c.type === 'text' ? 'TEXT' : 'INTEGER') : c.type,
          notNull: c.notNull || table.primaryKey.includes(c.name),
          default: numbered ? null : c.default,
          numbered,
        };
      }),
      unique: table.unique.filter((u) => u.every((c) => kept.has(c))),
      indexes: Object.fromEntries(
        Object.entries(table.indexes).filter(([index]) => !own(described?.indexes, index)),
      ),
    };
  }
  return shared;
}

/** The SQL each object of a SQLite file was made with, spacing aside: what a migration left must match. */
function sqliteDefinitions(db: Database.Database): Record<string, string | null> {
  const rows = db.prepare("SELECT name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").all() as {
    name: string;
    sql: string | null;
  }[];
  const spaced = (sql: string) =>
    sql
      .replace(/\s+/g, ' ')
      .replace(/\s*([(),])\s*/g, '$1')
      .trim();
  return Object.fromEntries(rows.map((r) => [r.name, r.sql === null ? null : spaced(r.sql)]));
}

/** PostgreSQL's own definitions of every index, constraint and sequence: what a migration left must match. */
function pgDefinitions(pg: SyncPg) {
  return {
    indexes: pg.query("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1")
      .rows,
    constraints: pg.query(
      "SELECT conrelid::regclass::text AS tbl, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2",
    ).rows,
    sequences: pg.query(
      "SELECT sequence_name, data_type, start_value, increment FROM information_schema.sequences WHERE sequence_schema = 'public' ORDER BY 1",
    ).rows,
  };
}

let server: PgServer;
beforeAll(() => {
  server = startPostgres();
}, 60_000);
afterAll(() => server?.stop());

/** A new journal of each dialect, opened as toolgate opens it, read back by its own connection. */
function newSqlite(use: (db: Database.Database, journal: SqliteJournal) => void): void {
  const file = path.join(makeTempDir('toolgate-schema-'), 'journal.db');
  const journal = SqliteJournal.open(file);
  const db = new Database(file, { readonly: true });
  try {
    use(db, journal);
  } finally {
    db.close();
    journal.close();
  }
}
function newPg(use: (pg: SyncPg) => void): void {
  const url = server.createDatabase();
  const journal = PostgresJournal.open(url);
  const pg = SyncPg.connect(url);
  try {
    use(pg);
  } finally {
    pg.close();
    journal.close();
  }
}

describe('the journal schema, written once (issue #32)', () => {
  it('a new SQLite journal has the described tables, columns (types as SQLite keeps them), keys, references, checks and indexes', () => {
    newSqlite((db) => expect(sqliteShape(db)).toEqual(describedShape('sqlite')));
  });

  it('a new PostgreSQL journal has the described tables, columns (types as PostgreSQL keeps them), keys, references, checks and indexes', () => {
    newPg((pg) => expect(pgShape(pg)).toEqual(describedShape('postgres')));
  });

  it("SQLite's index for rate limits, made on the first count, is the described one", () => {
    newSqlite((db, journal) => {
      journal.countCallsSince('run_command', 0);
      const described = JOURNAL_TABLES.find((t) => t.name === 'calls')?.indexes?.find(
        (i) => i.madeOnFirstUseIn === 'sqlite',
      );
      expect(described).toBeDefined();
      expect(sqliteShape(db).calls?.indexes[described?.name ?? '']).toEqual({
        columns: described?.columns,
        unique: false,
        where: null,
      });
    });
  });

  it("the two dialects agree with each other: the same tables, columns of corresponding types, keys, references, checks and indexes, but for what the description names as one dialect's own", () => {
    let sqlite: SchemaShape = {};
    let postgres: SchemaShape = {};
    newSqlite((db, journal) => {
      journal.countCallsSince('run_command', 0); // SQLite's index made on first use, so both have it
      sqlite = sqliteShape(db);
    });
    newPg((pg) => {
      postgres = pgShape(pg);
    });
    expect(sharedPart(sqlite, 'sqlite')).toEqual(sharedPart(postgres, 'postgres'));
  });

  it('both are at the schema version the description describes', () => {
    expect(SCHEMA_VERSION).toBe(JOURNAL_SCHEMA_VERSIONS.sqlite);
    expect(PG_SCHEMA_VERSION).toBe(JOURNAL_SCHEMA_VERSIONS.postgres);
    newSqlite((db) =>
      expect(db.pragma('user_version', { simple: true })).toBe(JOURNAL_SCHEMA_VERSIONS.sqlite),
    );
    newPg((pg) =>
      expect(pg.query('SELECT version FROM toolgate_schema').rows).toEqual([
        { version: JOURNAL_SCHEMA_VERSIONS.postgres },
      ]),
    );
  });

  it('a SQLite journal an older toolgate made, at every older version, migrates to exactly what a new one is', () => {
    const read = (db: Database.Database) => ({
      version: db.pragma('user_version', { simple: true }),
      shape: sqliteShape(db),
      definitions: sqliteDefinitions(db),
    });
    const fresh = new Database(':memory:');
    migrate(fresh);
    const expected = read(fresh);
    fresh.close();
    for (let version = 1; version < SCHEMA_VERSION; version++) {
      const db = new Database(':memory:');
      for (const migration of SQLITE_MIGRATIONS.slice(0, version)) db.exec(migration);
      db.pragma(`user_version = ${version}`);
      migrate(db);
      expect({ from: version, ...read(db) }).toEqual({ from: version, ...expected });
      db.close();
    }
  });

  it('a PostgreSQL journal an older toolgate made, at every older version, migrates to exactly what a new one is', () => {
    const read = (pg: SyncPg) => ({
      version: pg.query('SELECT version FROM toolgate_schema').rows,
      shape: pgShape(pg),
      definitions: pgDefinitions(pg),
    });
    const onNew = <T>(use: (pg: SyncPg) => T): T => {
      const pg = SyncPg.connect(server.createDatabase());
      try {
        return use(pg);
      } finally {
        pg.close();
      }
    };
    const expected = onNew((pg) => {
      migratePg(pg);
      return read(pg);
    });
    for (let version = 1; version < PG_SCHEMA_VERSION; version++) {
      const migrated = onNew((pg) => {
        pg.query('CREATE TABLE toolgate_schema (version INTEGER NOT NULL)');
        pg.query('INSERT INTO toolgate_schema (version) VALUES ($1)', [version]);
        for (const migration of PG_MIGRATIONS.slice(0, version)) pg.query(migration);
        migratePg(pg);
        return read(pg);
      });
      expect({ from: version, ...migrated }).toEqual({ from: version, ...expected });
    }
  });
});
