export { explainSqliteError, SqliteJournal } from './sqlite/sqlite-journal.js';
