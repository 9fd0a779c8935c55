import type BetterSqlite3 from 'better-sqlite3';
import { requireOptional } from '../core/optional-package.js';
import { loadBetterSqlite3 } from './load-better-sqlite3.js';

const FEATURE = "toolgate's journal and memory (SQLite)";

/**
 * Opens a SQLite database with better-sqlite3, an optional dependency: when it is not installed,
 * a MissingPackageError says how to install it. Its native addon is found when the first
 * database is opened, so a package left out is also reported here in the CLI bundle.
 */
export function openSqlite(file: string): BetterSqlite3.Database {
  const Database = requireOptional('better-sqlite3', FEATURE, loadBetterSqlite3);
  return requireOptional('better-sqlite3', FEATURE, () => new Database(file));
}
