import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/journal/schema.js';
import { REPO } from '../cli/run-cli.js';
import { runCliAsync } from '../helpers/run-cli-async.js';
import { makeTempDir } from '../helpers/workspace.js';

const WORKER = path.join(REPO, 'test/journal/first-open-worker.mjs');
const PROCESSES = 8;
const ROUNDS = 6;

/** Starts a worker and resolves once it has loaded and waits for "go". */
async function readyWorker(
  file: string,
  session: string,
): Promise<{ child: ChildProcess; output: Promise<string> }> {
  const child = spawn(process.execPath, [WORKER, file, session], { stdio: ['pipe', 'pipe', 'pipe'] });
  let text = '';
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    text += chunk;
  });
  const ready = new Promise<void>((resolve) => {
    child.stdout?.on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('ready\n')) resolve();
    });
  });
  const output = once(child, 'close').then(() => text.replace('ready\n', '').trim());
  await ready;
  return { child, output };
}

describe('journal first open from many processes at once (issue #12)', () => {
  it(`${PROCESSES} processes opening a new journal at the same instant all succeed, ${ROUNDS} rounds`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const file = path.join(makeTempDir('toolgate-race-'), '.toolgate', 'journal.db');
      const workers = await Promise.all(
        Array.from({ length: PROCESSES }, (_, i) => readyWorker(file, `s${i}`)),
      );
      for (const w of workers) w.child.stdin?.write('go\n');
      const outputs = await Promise.all(workers.map((w) => w.output));
      expect(outputs, `round ${round}`).toEqual(Array.from({ length: PROCESSES }, () => 'ok'));
      const db = new Database(file, { readonly: true });
      expect(db.prepare('SELECT count(*) AS n FROM batches').get()).toEqual({ n: PROCESSES });
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      db.close();
    }
  }, 120_000);

  it('eight `toolgate exec` processes started together in a fresh folder all answer', async () => {
    const dir = makeTempDir('toolgate-race-exec-');
    const input = JSON.stringify([{ id: '1', name: 'list_directory', arguments: { path: '.' } }]);
    const runs = await Promise.all(
      Array.from({ length: PROCESSES }, () => runCliAsync(['exec', '--root', dir], { cwd: dir, input })),
    );
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout)[0].ok).toBe(true);
    }
  }, 120_000);
});
