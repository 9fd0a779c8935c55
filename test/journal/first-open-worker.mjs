// One of many processes opening the same journal file for the first time: it loads everything,
// waits for "go" on stdin (so all of them open at the same instant), opens the journal, journals a
// batch and prints "ok", or prints the error and exits 1.
import { SqliteJournal } from '../../dist/journal/sqlite-journal.js';

const [file, session] = process.argv.slice(2);
process.stdin.once('data', () => {
  try {
    const journal = SqliteJournal.open(file);
    journal.beginBatch(session, [{ id: 'c1', name: 'read_file', arguments: { path: 'x' } }]);
    journal.close();
    process.stdout.write('ok\n');
  } catch (error) {
    process.stdout.write(`${error.message}\n`);
    process.exitCode = 1;
  }
  process.stdin.destroy();
});
process.stdout.write('ready\n');
