import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCliAsync } from '../helpers/run-cli-async.js';
import { makeTempDir } from '../helpers/workspace.js';
import { trustProject } from './run-cli.js';

const DAY = 24 * 60 * 60 * 1000;

/** Two exec batches, then the first one aged by 40 days (as if journaled then). */
async function journalWithAnOldBatch() {
  const root = makeTempDir('toolgate-retention-');
  writeFileSync(path.join(root, 'a.txt'), 'a');
  for (const id of ['old', 'new']) {
    const run = await runCliAsync(['exec'], {
      cwd: root,
      input: JSON.stringify([{ id, name: 'read_file', arguments: { path: 'a.txt' } }]),
    });
    expect(run.status, run.stderr).toBe(0);
  }
  const file = path.join(root, '.toolgate', 'journal.db');
  const db = new Database(file);
  const oldBatch = (
    db.prepare("SELECT batch_id FROM calls WHERE call_id = 'old'").get() as { batch_id: string }
  ).batch_id;
  db.prepare('UPDATE batches SET created_at = ? WHERE id = ?').run(Date.now() - 40 * DAY, oldBatch);
  db.close();
  return { root, oldBatch };
}

describe('journal retention and export (issue #16 §9)', () => {
  it('issue #30 §1: an export is redacted (the journal keeps the exact call; what leaves it does not carry its secrets)', async () => {
    const root = makeTempDir('toolgate-export-redact-');
    const secret = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const run = await runCliAsync(['exec'], {
      cwd: root,
      input: JSON.stringify([
        { id: 's', name: 'write_file', arguments: { path: 'x.sh', content: `token=${secret}\n` } },
      ]),
    });
    expect(run.stdout).toContain('"id": "s"');
    const db = new Database(path.join(root, '.toolgate', 'journal.db'));
    expect(JSON.stringify(db.prepare('SELECT * FROM calls').all())).toContain(secret);
    db.close();
    const exported = await runCliAsync(['journal', 'export'], { cwd: root });
    expect(exported.stdout).toContain('"callId":"s"');
    expect(exported.stdout).toContain('[REDACTED]');
    expect(exported.stdout).not.toContain(secret);
  });

  it('journal export: one JSON line per call since a date or an age; journal prune --older-than removes the old batch only', async () => {
    const { root, oldBatch } = await journalWithAnOldBatch();
    const all = await runCliAsync(['journal', 'export'], { cwd: root });
    const lines = all.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { callId: string; tool: string; result: { ok: boolean } });
    expect(lines.map((l) => l.callId)).toEqual(['old', 'new']);
    expect(lines[0]).toMatchObject({ tool: 'read_file', result: { ok: true } });
    const recent = await runCliAsync(['journal', 'export', '--since', '7d'], { cwd: root });
    expect(
      recent.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).callId),
    ).toEqual(['new']);
    const byDate = await runCliAsync(
      ['journal', 'export', '--since', new Date(Date.now() - DAY).toISOString()],
      { cwd: root },
    );
    expect(byDate.stdout.trim().split('\n')).toHaveLength(1);
    const pruned = await runCliAsync(['journal', 'prune', '--older-than', '30d', '--json'], { cwd: root });
    expect(JSON.parse(pruned.stdout)).toMatchObject({ batches: 1, calls: 1 });
    const list = await runCliAsync(['journal', 'list', '--json'], { cwd: root });
    expect((JSON.parse(list.stdout) as { id: string }[]).map((b) => b.id)).not.toContain(oldBatch);
    expect(JSON.parse(list.stdout)).toHaveLength(1);
    for (const args of [
      ['journal', 'prune'],
      ['journal', 'prune', '--older-than', 'soon'],
      ['journal', 'export', '--since', 'yesterday-ish'],
      ['journal', 'export', '--format', 'csv'],
    ]) {
      const r = await runCliAsync(args, { cwd: root });
      expect(r.status, args.join(' ')).toBe(2);
    }
  });

  it('[journal] retain_days: the next command that opens the journal removes what is older', async () => {
    const { root, oldBatch } = await journalWithAnOldBatch();
    writeFileSync(path.join(root, 'toolgate.toml'), '[journal]\nretain_days = 30\n');
    trustProject(root); // a project's own config applies in full once trusted (issue #29 §6)
    const run = await runCliAsync(['exec'], {
      cwd: root,
      input: JSON.stringify([{ id: 'x', name: 'read_file', arguments: { path: 'a.txt' } }]),
    });
    expect(run.status, run.stderr).toBe(0);
    const list = await runCliAsync(['journal', 'list', '--json'], { cwd: root });
    const ids = (JSON.parse(list.stdout) as { id: string }[]).map((b) => b.id);
    expect(ids).toHaveLength(2);
    expect(ids).not.toContain(oldBatch);
  });
});
