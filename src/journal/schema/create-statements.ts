import { type Column, type ColumnType, type Dialect, inDialect, type Table } from './table-description.js';

/**
 * The CREATE TABLE and CREATE INDEX statements for the tables described, in one dialect: its own
 * tables, columns and indexes, its names for the column types, and the rest written alike (both
 * dialects read it). Each column's clauses come in the order the journal's SQL has always
 * written them: PRIMARY KEY (a one-column key), NOT NULL, DEFAULT, UNIQUE, CHECK, REFERENCES.
 */
export function createStatements(
  tables: readonly Table[],
  dialect: Dialect,
  types: Readonly<Record<ColumnType, string>>,
): string {
  const statements: string[] = [];
  for (const table of tables.filter((t) => inDialect(t, dialect))) {
    const key = table.primaryKey ?? [];
    const columns = table.columns
      .filter((c) => inDialect(c, dialect))
      .map((c) => `${c.name} ${types[c.type]}${clauses(c, key.length === 1 && key[0] === c.name)}`);
    // A key of several columns is written after them.
    if (key.length > 1) columns.push(`PRIMARY KEY (${key.join(', ')})`);
    statements.push(`CREATE TABLE ${table.name} (\n  ${columns.join(',\n  ')}\n)`);
    for (const index of table.indexes ?? []) {
      if (!inDialect(index, dialect) || index.madeOnFirstUseIn === dialect) continue;
      const where = index.where !== undefined ? ` WHERE ${index.where}` : '';
      statements.push(`CREATE INDEX ${index.name} ON ${table.name}(${index.columns.join(', ')})${where}`);
    }
  }
  return `${statements.join(';\n')};\n`;
}

function clauses(column: Column, wholeKey: boolean): string {
  return [
    wholeKey ? ' PRIMARY KEY' : '',
    column.notNull ? ' NOT NULL' : '',
    column.default !== undefined ? ` DEFAULT ${column.default}` : '',
    column.unique ? ' UNIQUE' : '',
    column.check !== undefined ? ` CHECK (${column.check})` : '',
    column.references ? ` REFERENCES ${column.references.table}(${column.references.column})` : '',
  ].join('');
}
