import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { orphanBatches } from '../helpers/orphan-batches.js';
import { useWorkspace } from '../helpers/workspace.js';
import { runCli } from './run-cli.js';

describe('exec with the journal, recover, journal (issue #4)', () => {
  const ws = useWorkspace();
  const exec = (calls: unknown[], args: string[] = []) =>
    runCli(['exec', '--approve', 'all', ...args], { cwd: ws.dir(), input: JSON.stringify(calls) });

  it('journals to .toolgate/journal.db under the first root by default; --no-journal writes nothing', () => {
    ws.file('a.txt', 'A');
    expect(
      exec([{ id: '1', name: 'read_file', arguments: { path: 'a.txt' } }], ['--no-journal']).status,
    ).toBe(0);
    expect(existsSync(path.join(ws.dir(), '.toolgate'))).toBe(false);
    expect(exec([{ id: '1', name: 'read_file', arguments: { path: 'a.txt' } }]).status).toBe(0);
    expect(existsSync(path.join(ws.dir(), '.toolgate', 'journal.db'))).toBe(true);
  });

  it('--session carries the read cache across runs: read in one run, patch in the next', () => {
    ws.file('a.txt', 'one\n');
    exec([{ id: '1', name: 'read_file', arguments: { path: 'a.txt' } }], ['--session', 'conv-1']);
    const patch = '*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch';
    const other = JSON.parse(
      exec([{ id: '2', name: 'apply_patch', arguments: { patch } }], ['--session', 'conv-2']).stdout,
    );
    expect(other[0].error.type).toBe('StaleFile');
    const same = JSON.parse(
      exec([{ id: '3', name: 'apply_patch', arguments: { patch } }], ['--session', 'conv-1']).stdout,
    );
    expect(same[0].ok).toBe(true);
    expect(readFileSync(path.join(ws.dir(), 'a.txt'), 'utf8')).toBe('two\n');
  });

  it('journal list and export warn of a damaged staged batch; journal repair prints and removes it (review finding)', () => {
    ws.file('a.txt', 'A');
    expect(exec([{ id: '1', name: 'read_file', arguments: { path: 'a.txt' } }]).status).toBe(0);
    const file = path.join(ws.dir(), '.toolgate', 'journal.db');
    const db = new Database(file);
    db.prepare('INSERT INTO staged_batches (body) VALUES (?)').run('{damaged');
    db.close();
    const list = runCli(['journal', 'list'], { cwd: ws.dir() });
    expect(list.status).toBe(0);
    expect(list.stdout).toMatch(/1 call\(s\), 0 failed/);
    expect(list.stderr).toMatch(/1 staged read-only batch\(es\) it cannot read .*toolgate journal repair/);
    expect(runCli(['journal', 'export'], { cwd: ws.dir() }).stderr).toMatch(/cannot read/);
    const repair = runCli(['journal', 'repair'], { cwd: ws.dir() });
    expect(repair.stdout).toMatch(/removed staged batch #\d+: \{damaged/);
    expect(runCli(['journal', 'list'], { cwd: ws.dir() }).stderr).toBe('');
    expect(runCli(['journal', 'repair'], { cwd: ws.dir() }).stdout).toMatch(/Nothing to repair/);
  });

  it('--journal FILE puts it elsewhere; the tools cannot touch it', () => {
    const journal = path.join(ws.dir(), 'state', 'j.db');
    mkdirSync(path.dirname(journal)); // a --journal folder must exist (issue #31 §3)
    const run = exec(
      [
        { id: '1', name: 'read_file', arguments: { path: 'state/j.db' } },
        { id: '2', name: 'write_file', arguments: { path: 'state/j.db-wal', content: 'x' } },
      ],
      ['--journal', journal],
    );
    expect(JSON.parse(run.stdout).map((r: { error: { type: string } }) => r.error.type)).toEqual([
      'SandboxViolation',
      'SandboxViolation',
    ]);
    expect(existsSync(journal)).toBe(true);
  });

  it('a damaged journal stops exec before anything runs, with a clear message', () => {
    ws.file(
      '.toolgate/journal.db',
      'garbage garbage garbage garbage garbage garbage garbage garbage garbage garbage',
    );
    const run = exec([{ id: '1', name: 'write_file', arguments: { path: 'new.txt', content: 'x' } }]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/journal .*damaged or not a toolgate database/);
    expect(existsSync(path.join(ws.dir(), 'new.txt'))).toBe(false);
  });

  it('recover --json lists incomplete batches; --resume and --discard settle them without prompting', () => {
    const file = path.join(ws.dir(), '.toolgate', 'journal.db');
    const journal = SqliteJournal.open(file);
    const a = journal.beginBatch('s', [
      { id: 'x', name: 'write_file', arguments: {} },
      { id: 'y', name: 'read_file', arguments: {} },
    ]);
    journal.markRunning(a, 0);
    const b = journal.beginBatch('s', [{ id: 'z', name: 'read_file', arguments: {} }]);
    journal.close();
    orphanBatches(file);
    const listed = JSON.parse(runCli(['recover', '--json'], { cwd: ws.dir() }).stdout);
    expect(listed).toEqual([
      {
        id: a,
        session: 's',
        calls: [
          { id: 'x', name: 'write_file', status: 'running' },
          { id: 'y', name: 'read_file', status: 'planned' },
        ],
        state: 'interrupted',
      },
      {
        id: b,
        session: 's',
        calls: [{ id: 'z', name: 'read_file', status: 'planned' }],
        state: 'interrupted',
      },
    ]);
    const resumed = JSON.parse(runCli(['recover', '--resume', a], { cwd: ws.dir() }).stdout);
    expect(resumed.map((r: { error: { message: string } }) => r.error.message.split(' (')[0])).toEqual([
      'outcome unknown: interrupted',
      'not executed: toolgate stopped before this call started',
    ]);
    expect(runCli(['recover', '--discard', b], { cwd: ws.dir() }).status).toBe(0);
    expect(JSON.parse(runCli(['recover', '--json'], { cwd: ws.dir() }).stdout)).toEqual([]);
    expect(runCli(['recover'], { cwd: ws.dir() }).stdout).toMatch(/No incomplete batches/);
    expect(runCli(['recover', '--resume', 'nope'], { cwd: ws.dir() }).status).toBe(2);
  });

  it('a batch left waiting for approval is answered later with recover --resume ID --approve all', () => {
    const file = path.join(ws.dir(), '.toolgate', 'journal.db');
    const journal = SqliteJournal.open(file);
    const id = journal.beginBatch(
      's',
      [{ id: 'w', name: 'write_file', arguments: { path: 'later.txt', content: 'L' } }],
      {
        plan: [
          {
            index: 0,
            approval: {
              callId: 'w',
              toolName: 'write_file',
              summary: 'Create later.txt',
              risk: 'medium',
              locations: [],
              reason: 'r',
              rule: 'r',
            },
          },
        ],
      },
    );
    journal.close();
    orphanBatches(file);
    const run = runCli(['recover', '--resume', id, '--approve', 'all'], { cwd: ws.dir() });
    expect(JSON.parse(run.stdout)[0]).toMatchObject({ id: 'w', ok: true });
    expect(readFileSync(path.join(ws.dir(), 'later.txt'), 'utf8')).toBe('L');
  });

  it('journal list and show report batches, decisions with their rule, results and timings', () => {
    writeFileSync(path.join(ws.dir(), 'a.txt'), 'A');
    exec([{ id: '1', name: 'read_file', arguments: { path: 'a.txt' } }]);
    const list = JSON.parse(runCli(['journal', 'list', '--json'], { cwd: ws.dir() }).stdout);
    expect(list[0]).toMatchObject({ status: 'complete', calls: 1, failed: 0 });
    const shown = runCli(['journal', 'show', list[0].id], { cwd: ws.dir() }).stdout;
    expect(shown).toMatch(/read_file \(id 1\) \[done\] \d+ ms/);
    expect(shown).toMatch(/decision: allow by read-only tools run without asking/);
    expect(shown).toMatch(/result: ok A/);
    expect(
      JSON.parse(runCli(['journal', 'show', list[0].id, '--json'], { cwd: ws.dir() }).stdout).calls[0].result
        .content,
    ).toBe('A');
  });
});
