import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/workspace.js';

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'full-disk-worker.mjs');
const mounted: string[] = [];
afterAll(() => {
  for (const m of mounted) spawnSync('umount', [m]);
});

/** A 2 MB tmpfs when this machine allows mounting; else undefined (the ulimit path is used). */
function smallFilesystem(): string | undefined {
  const dir = makeTempDir('toolgate-full-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir], { stdio: 'ignore' });
    mounted.push(dir);
    return dir;
  } catch {
    return undefined;
  }
}

interface Outcome {
  results: { id: string; ok: boolean; type: string | null; message: string | null }[];
  journal: { id: string; status: string; ok: boolean | null }[] | null;
}

describe('journal on a full disk (issue #4 faults)', () => {
  function run(freeKb: number): Outcome {
    const fs = smallFilesystem();
    const dir = fs ?? makeTempDir('toolgate-full-');
    mkdirSync(path.join(dir, 'root'));
    const child = fs
      ? spawnSync(process.execPath, [WORKER, dir, 'fill'], {
          encoding: 'utf8',
          env: { ...process.env, FREE_KB: String(freeKb) },
        })
      : // No mount here: the OS refuses writes past 256 KB per file instead (RLIMIT_FSIZE).
        spawnSync('bash', ['-c', `ulimit -f 256 && exec "${process.execPath}" "${WORKER}" "${dir}" limit`], {
          encoding: 'utf8',
        });
    expect(child.status, child.stderr).toBe(0);
    return JSON.parse(child.stdout) as Outcome;
  }

  function checkInvariants(outcome: Outcome) {
    // Exactly one result per call, in order, and every failure says what happened.
    expect(outcome.results.map((r) => r.id)).toEqual(Array.from({ length: 40 }, (_, i) => `w${i}`));
    for (const f of outcome.results.filter((r) => !r.ok)) {
      expect(f.message).toMatch(/no space|disk is full|not executed|could not be written|EFBIG|too large/i);
    }
    // The journal opens intact once space is back, and what it committed is what was returned.
    for (const [i, row] of (outcome.journal ?? []).entries()) {
      if (row.status === 'done') expect(row.ok).toBe(outcome.results[i]?.ok);
    }
  }

  it('almost no room: the batch is recorded or refused, and nothing runs that was not recorded', () => {
    const outcome = run(450);
    checkInvariants(outcome);
    expect(outcome.results.some((r) => !r.ok)).toBe(true);
    const ran = outcome.results.filter((r) => r.ok).length;
    const done = outcome.journal?.filter((r) => r.status === 'done').length ?? 0;
    expect(ran).toBeLessThanOrEqual(done);
  });

  it('filling up mid-batch: writes that fit are committed, the rest stop with clear errors', () => {
    // Room for a few: each write's batch row holds its approval preview too (issue #17).
    const outcome = run(1300);
    checkInvariants(outcome);
    expect(outcome.results.filter((r) => r.ok).length).toBeGreaterThan(0);
    expect(outcome.results.filter((r) => !r.ok).length).toBeGreaterThan(0);
    expect(outcome.journal?.filter((r) => r.status === 'done').length).toBeGreaterThan(0);
    // A call whose result could not be committed stays `running`: recovery will call it unknown.
    for (const [i, row] of (outcome.journal ?? []).entries()) {
      if (row.status === 'running')
        expect(outcome.results[i]?.ok === false || outcome.results[i]?.ok === true).toBe(true);
    }
  });
});
