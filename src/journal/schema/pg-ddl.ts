import { createStatements } from './create-statements.js';
import type { ColumnType, Table } from './table-description.js';

const PG_TYPES: Record<ColumnType, string> = {
  text: 'TEXT',
  json: 'TEXT',
  integer: 'INTEGER',
  bigint: 'BIGINT',
  boolean: 'BOOLEAN',
  serial: 'BIGSERIAL',
};

/** The PostgreSQL statements that make the tables described, for a new database. */
export function pgDdl(tables: readonly Table[]): string {
  return createStatements(tables, 'postgres', PG_TYPES);
}
