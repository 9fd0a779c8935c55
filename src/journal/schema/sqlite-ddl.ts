import { createStatements } from './create-statements.js';
import { type ColumnType, inDialect, type Table } from './table-description.js';

const SQLITE_TYPES: Record<ColumnType, string> = {
  text: 'TEXT',
  json: 'TEXT',
  integer: 'INTEGER',
  bigint: 'INTEGER',
  boolean: 'INTEGER',
  serial: 'INTEGER',
};

/** The SQLite statements that make the tables described, for a new journal file. */
export function sqliteDdl(tables: readonly Table[]): string {
  // SQLite numbers a `serial` column only as its table's one-column INTEGER PRIMARY KEY (the rowid).
  for (const table of tables.filter((t) => inDialect(t, 'sqlite')))
    for (const column of table.columns.filter((c) => inDialect(c, 'sqlite')))
      if (column.type === 'serial' && table.primaryKey?.join() !== column.name)
        throw new Error(
          `${table.name}.${column.name}: in SQLite a serial column must be its table's whole key`,
        );
  return createStatements(tables, 'sqlite', SQLITE_TYPES);
}
