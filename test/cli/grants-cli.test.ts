import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { makeTempDir } from '../helpers/workspace.js';
import { runCli } from './run-cli.js';

/**
 * Issue #30 §5: `toolgate grants list|revoke` on the real bundled CLI, against a real journal; a
 * revoke is seen by the next plan (`policy explain`, a new process) at once.
 */
describe('issue #30 §5: toolgate grants list|revoke', () => {
  it('lists every grant with its id and what it covers (old tool-wide rows marked as not honoured); revoke ID makes the next plan ask; --all removes the rest', () => {
    const dir = realpathSync(makeTempDir('toolgate-grants-cli-'));
    const file = path.join(dir, '.toolgate', 'journal.db');
    mkdirSync(path.dirname(file), { recursive: true });
    const journal = SqliteJournal.open(file);
    journal.addGrant({
      tool: 'write_file',
      covers: { kind: 'paths', paths: [path.join(dir, 'g.txt')], shown: ['g.txt'] },
      scope: 'project',
      createdAt: Date.now(),
    });
    journal.addGrant({
      tool: 'web_fetch',
      covers: { kind: 'origin', origin: 'https://docs.rs' },
      scope: 'session',
      session: 'S1',
      createdAt: Date.now(),
    });
    journal.close();
    const db = new Database(file);
    db.exec(
      "INSERT INTO grants (session_id, tool, prefix, covers, scope, created_at) VALUES (NULL, 'edit_file', NULL, NULL, 'project', 1)",
    );
    db.close();
    const explain = (p: string) =>
      JSON.parse(
        runCli(['policy', 'explain', 'write_file', JSON.stringify({ path: p, content: 'x' }), '--json'], {
          cwd: dir,
        }).stdout,
      ).outcome;

    const listed = runCli(['grants', 'list', '--json'], { cwd: dir });
    expect(listed.status).toBe(0);
    const grants = JSON.parse(listed.stdout) as {
      id: number;
      tool: string;
      honoured: boolean;
      text: string;
    }[];
    expect(grants.map((g) => [g.tool, g.honoured, g.text])).toEqual([
      ['write_file', true, 'write_file to g.txt, every session'],
      ['web_fetch', true, 'web_fetch fetches from https://docs.rs, session S1'],
      [
        'edit_file',
        false,
        'edit_file: an old grant for every call of the tool, no longer honoured (revoke it)',
      ],
    ]);
    const text = runCli(['grants', 'list'], { cwd: dir }).stdout;
    expect(text).toContain(`${grants[0]?.id}  `);
    expect(text).toContain('write_file to g.txt, every session');
    const s1 = JSON.parse(runCli(['grants', 'list', '--session', 'S2', '--json'], { cwd: dir }).stdout);
    expect(s1.map((g: { tool: string }) => g.tool)).toEqual(['write_file', 'edit_file']);

    expect(explain('g.txt')).toBe('allow');
    expect(explain('h.txt')).toBe('ask');
    const revoked = runCli(['grants', 'revoke', String(grants[0]?.id)], { cwd: dir });
    expect(revoked.status).toBe(0);
    expect(revoked.stdout).toBe(`revoked grant ${grants[0]?.id}: write_file to g.txt, every session\n`);
    expect(explain('g.txt')).toBe('ask');

    const again = runCli(['grants', 'revoke', String(grants[0]?.id)], { cwd: dir });
    expect(again.status).toBe(2);
    expect(again.stderr).toContain(`no grant has id ${grants[0]?.id}; see \`toolgate grants list\``);
    for (const bad of [
      ['grants', 'revoke'],
      ['grants', 'revoke', '1x'],
      ['grants', 'revoke', '1', '--all'],
    ]) {
      const r = runCli(bad, { cwd: dir });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/grant/);
    }
    const all = runCli(['grants', 'revoke', '--all'], { cwd: dir });
    expect(all.stdout).toBe('revoked 2 grant(s)\n');
    expect(JSON.parse(runCli(['grants', 'list', '--json'], { cwd: dir }).stdout)).toEqual([]);
    expect(runCli(['grants', 'list'], { cwd: dir }).stdout).toContain('no grants');
  });

  it('looking at grants where there is no journal creates none', () => {
    const dir = makeTempDir('toolgate-grants-cli-');
    const r = runCli(['grants', 'list'], { cwd: dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('no grants');
    expect(runCli(['grants', 'revoke', '--all'], { cwd: dir }).status).toBe(0);
    expect(existsSync(path.join(dir, '.toolgate'))).toBe(false);
  });
});
