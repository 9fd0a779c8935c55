import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { runCli } from '../cli/run-cli.js';
import { useWorkspace } from '../helpers/workspace.js';

/** Issue #13 item 10: toolgate's state is private, and none of it is reachable by the tools. */
describe('state files (issue #13)', () => {
  const ws = useWorkspace();
  const mode = (f: string) => statSync(f).mode & 0o777;
  const exec = (calls: unknown[], args: string[] = []) =>
    JSON.parse(
      runCli(['exec', '--approve', 'all', ...args], { cwd: ws.dir(), input: JSON.stringify(calls) }).stdout,
    ) as { ok: boolean; error: { type: string } | null }[];

  it('.toolgate/ is 0700 and the journal with its -wal and -shm files 0600', () => {
    ws.file('a.txt', 'secret\n');
    exec([{ id: '1', name: 'read_file', arguments: { path: 'a.txt' } }]);
    const dir = path.join(ws.dir(), '.toolgate');
    expect(mode(dir)).toBe(0o700);
    for (const f of ['journal.db', '.gitignore']) expect(mode(path.join(dir, f)), f).toBe(0o600);
    // While a journal is open its WAL and shared-memory files exist: they take the journal's mode.
    const open = SqliteJournal.open(path.join(dir, 'journal.db'));
    try {
      open.beginBatch('s', [{ id: '1', name: 'read_file', arguments: {} }]);
      for (const f of ['journal.db-wal', 'journal.db-shm']) expect(mode(path.join(dir, f)), f).toBe(0o600);
    } finally {
      open.close();
    }
  });

  it('an existing journal and folder that are readable by others are tightened', () => {
    const dir = path.join(ws.dir(), '.toolgate');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    exec([{ id: '1', name: 'list_directory', arguments: { path: '.' } }]);
    chmodSync(path.join(dir, 'journal.db'), 0o644);
    chmodSync(dir, 0o755);
    exec([{ id: '1', name: 'list_directory', arguments: { path: '.' } }]);
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(dir, 'journal.db'))).toBe(0o600);
  });

  it('every SQLite side file of a custom --journal path is denied to the tools', () => {
    const journal = path.join(ws.dir(), 'j.db');
    writeFileSync(`${journal}-journal`, '');
    const names = ['j.db', 'j.db-wal', 'j.db-shm', 'j.db-journal'];
    const results = exec(
      names.map((name, i) => ({
        id: `w${i}`,
        name: 'write_file',
        arguments: { path: name, content: 'x', overwrite: true },
      })),
      ['--journal', journal],
    );
    expect(results.map((r) => r.error?.type)).toEqual(names.map(() => 'SandboxViolation'));
    expect(mode(journal)).toBe(0o600);
  });
});
