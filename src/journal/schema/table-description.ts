/**
 * The words the journal's tables are described in (tables.ts), once for both dialects; each
 * dialect's DDL is generated from them (sqlite-ddl.ts, pg-ddl.ts).
 */
export type Dialect = 'sqlite' | 'postgres';

/**
 * What a column holds: `text`; `json`, kept as text; `integer`, a small number (a position, an
 * index); `bigint`, a time in milliseconds since the epoch; `boolean`; `serial`, a key the
 * database numbers. Each dialect's names for them: sqlite-ddl.ts, pg-ddl.ts.
 */
export type ColumnType = 'text' | 'json' | 'integer' | 'bigint' | 'boolean' | 'serial';

export interface Column {
  readonly name: string;
  readonly type: ColumnType;
  /** Written NOT NULL. A one-column primary key is not (SQLite keeps it as written). */
  readonly notNull?: true;
  /** An SQL literal both dialects read alike. */
  readonly default?: string;
  readonly unique?: true;
  /** A condition on this column both dialects read alike. */
  readonly check?: string;
  readonly references?: { readonly table: string; readonly column: string };
  /** A column of one dialect only; the table says why. */
  readonly only?: Dialect;
}

export interface Index {
  readonly name: string;
  readonly columns: readonly string[];
  /** A partial index's condition, which both dialects read alike. */
  readonly where?: string;
  readonly only?: Dialect;
  /** Not made with the schema in this dialect: its store makes it when first needed. */
  readonly madeOnFirstUseIn?: Dialect;
}

export interface Table {
  readonly name: string;
  /** In the order the columns are stored: a column added later comes last, as a migration left it. */
  readonly columns: readonly Column[];
  /** One column: written on the column; several: as the table's key. None: SQLite's rowid only. */
  readonly primaryKey?: readonly string[];
  readonly indexes?: readonly Index[];
  readonly only?: Dialect;
}

/** Whether a table, column or index is made in this dialect. */
export const inDialect = (item: { readonly only?: Dialect }, dialect: Dialect): boolean =>
  item.only === undefined || item.only === dialect;
