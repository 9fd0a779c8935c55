import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * better-sqlite3, required when the first database is opened rather than when toolgate is
 * imported: a library that never opens a journal or a memory store does not need it installed.
 * The CLI bundle replaces this module with a static import, so its JavaScript is bundled
 * (scripts/bundle-cli.js, lazyBetterSqlite3).
 */
export function loadBetterSqlite3(): typeof BetterSqlite3 {
  return createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
}
