import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import type { Approver } from '../../src/core/confirmation.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { createToolgate, type Toolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

const config = validateConfig({ tools: { approval: { denylist: [] }, run_command: { allow: ['ls'] } } });

async function outcome(gate: Toolgate, name: string, args: Record<string, unknown>) {
  const call = { id: 'x', name, arguments: args };
  await gate.prepare([call]);
  const [p] = gate.plan([call]);
  return p?.disposition.kind === 'execute'
    ? 'allow'
    : p?.disposition.kind === 'needs_approval'
      ? 'ask'
      : 'deny';
}

const always =
  (scope: 'session' | 'project'): Approver =>
  async () => ({ kind: 'approve_all', remember: scope });

describe('grants: "always allow" with an explicit scope (issue #5)', () => {
  it('a grant is as narrow as each approved sub-command (command plus subcommand), never the whole line', async () => {
    const root = makeTempDir('toolgate-grant-');
    const gate = createToolgate({ config, roots: [root], approver: always('session') });
    await gate.execute([{ id: '1', name: 'run_command', arguments: { command: 'git --version && true' } }]);
    await gate.execute([
      {
        id: '2',
        name: 'run_command',
        arguments: { command: 'git push --dry-run origin main 2>/dev/null; echo done' },
      },
    ]);
    expect(await outcome(gate, 'run_command', { command: 'git push --dry-run origin dev' })).toBe('allow');
    expect(await outcome(gate, 'run_command', { command: 'echo done' })).toBe('allow');
    expect(await outcome(gate, 'run_command', { command: 'echo hi' })).toBe('ask'); // no subcommands: exact only
    expect(await outcome(gate, 'run_command', { command: 'git log' })).toBe('ask'); // `git --version` granted only itself
    expect(await outcome(gate, 'run_command', { command: 'git commit -m x' })).toBe('ask');
    expect(await outcome(gate, 'run_command', { command: 'git pushx' })).toBe('ask');
    expect(await outcome(gate, 'run_command', { command: 'git push && rm -rf x' })).toBe('ask');
    expect(await outcome(gate, 'run_command', { command: 'echo $(git push)' })).toBe('ask');
  });

  it('issue #30 §5: a file grant covers later calls of that tool on that file only, in the session', async () => {
    const root = makeTempDir('toolgate-grant-');
    const gate = createToolgate({ config, roots: [root], approver: always('session') });
    expect(await outcome(gate, 'write_file', { path: 'a.txt', content: 'x' })).toBe('ask');
    await gate.execute([{ id: '1', name: 'write_file', arguments: { path: 'a.txt', content: 'x' } }]);
    expect(await outcome(gate, 'write_file', { path: 'a.txt', content: 'other' })).toBe('allow');
    expect(await outcome(gate, 'write_file', { path: 'b.txt', content: 'y' })).toBe('ask');
    expect(
      await outcome(gate, 'edit_file', { path: 'a.txt', edits: [{ target: 'x', replacement: 'y' }] }),
    ).toBe('ask');
  });

  it('with the journal: session grants stay in their session, project grants reach every session', async () => {
    const root = makeTempDir('toolgate-grant-');
    const file = path.join(root, '.toolgate', 'journal.db');
    const journal = SqliteJournal.open(file);
    const a = createToolgate({ config, roots: [root], journal, session: 'a', approver: always('session') });
    await a.execute([{ id: '1', name: 'run_command', arguments: { command: 'git status' } }]);
    const p = createToolgate({ config, roots: [root], journal, session: 'p', approver: always('project') });
    await p.execute([{ id: '2', name: 'run_command', arguments: { command: 'date' } }]);
    journal.close();
    const reopened = SqliteJournal.open(file);
    const a2 = createToolgate({ config, roots: [root], journal: reopened, session: 'a' });
    const b = createToolgate({ config, roots: [root], journal: reopened, session: 'b' });
    expect(await outcome(a2, 'run_command', { command: 'git status -s' })).toBe('allow');
    expect(await outcome(b, 'run_command', { command: 'git status -s' })).toBe('ask');
    expect(await outcome(b, 'run_command', { command: 'date +%s' })).toBe('allow');
    reopened.close();
  });

  it('approving once (no "always") stores nothing', async () => {
    const root = makeTempDir('toolgate-grant-');
    const gate = createToolgate({ config, roots: [root], approver: async () => ({ kind: 'approve_all' }) });
    await gate.execute([{ id: '1', name: 'run_command', arguments: { command: 'date' } }]);
    expect(await outcome(gate, 'run_command', { command: 'date' })).toBe('ask');
  });
});
