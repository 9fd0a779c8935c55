import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import type { ToolCall } from '../../src/core/tool-call.js';
import { createToolgate } from '../../src/toolgate.js';
import { createGlobTool } from '../../src/tools/fs/glob.js';
import { createGrepTool } from '../../src/tools/fs/grep.js';
import { snapshotTree } from '../helpers/tree.js';

const SECRET = 'RACE-SECRET-OUTSIDE';
/** A name only outside the root: a walk that followed a swapped-in link would list it. */
const OUTSIDE_NAME = 'RACE-NAME-OUTSIDE';
const SWAPPER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'swapper.mjs');
const DURATION_MS = 3_000;

function world() {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-race-')));
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'f.txt'), `${SECRET}\n`);
  writeFileSync(path.join(outside, 'final-secret.txt'), `${SECRET}\n`);
  writeFileSync(path.join(outside, `${OUTSIDE_NAME}.txt`), 'a name\n');
  mkdirSync(path.join(root, '.race-dir'));
  writeFileSync(path.join(root, '.race-dir', 'f.txt'), 'inside\n');
  symlinkSync(outside, path.join(root, '.race-link'));
  writeFileSync(path.join(root, '.final-file'), 'inside final\n');
  symlinkSync(path.join(outside, 'final-secret.txt'), path.join(root, '.final-link'));
  return { root, outside };
}

const ATTEMPTS: ((i: number) => ToolCall)[] = [
  (i) => ({ id: `r${i}`, name: 'read_file', arguments: { path: 'race/f.txt' } }),
  (i) => ({ id: `rf${i}`, name: 'read_file', arguments: { path: 'final.txt' } }),
  (i) => ({ id: `rm${i}`, name: 'read_many_files', arguments: { paths: ['race/f.txt', 'final.txt'] } }),
  (i) => ({ id: `ls${i}`, name: 'list_directory', arguments: { path: 'race' } }),
  (i) => ({ id: `gl${i}`, name: 'glob', arguments: { path: 'race', pattern: '*' } }),
  // From above the swapped folder: the walk itself meets it (issue #33's review).
  (i) => ({ id: `gla${i}`, name: 'glob', arguments: { path: '.', pattern: '**/*' } }),
  (i) => ({ id: `glt${i}`, name: 'glob', arguments: { path: '.', pattern: '**/*.txt' } }),
  (i) => ({ id: `gr${i}`, name: 'grep', arguments: { path: 'race', pattern: 'SECRET' } }),
  (i) => ({ id: `grf${i}`, name: 'grep', arguments: { path: 'final.txt', pattern: 'SECRET' } }),
  (i) => ({ id: `grr${i}`, name: 'grep', arguments: { path: '.', pattern: 'SECRET' } }),
  (i) => ({ id: `w${i}`, name: 'write_file', arguments: { path: `race/new-${i}.txt`, content: 'PWNED' } }),
  (i) => ({
    id: `wf${i}`,
    name: 'write_file',
    arguments: { path: 'final.txt', content: 'PWNED', overwrite: true },
  }),
  (i) => ({
    id: `wo${i}`,
    name: 'write_file',
    arguments: { path: 'race/f.txt', content: 'inside\n', overwrite: true },
  }),
  (i) => ({
    id: `e${i}`,
    name: 'edit_file',
    arguments: { path: 'race/f.txt', edits: [{ target: SECRET, replacement: 'PWNED' }] },
  }),
  (i) => ({
    id: `ef${i}`,
    name: 'edit_file',
    arguments: { path: 'final.txt', edits: [{ target: SECRET, replacement: 'PWNED' }] },
  }),
  (i) => ({
    id: `p${i}`,
    name: 'apply_patch',
    arguments: { patch: `*** Begin Patch\n*** Add File: race/p-${i}.txt\n+PWNED\n*** End Patch` },
  }),
  (i) => ({
    id: `pu${i}`,
    name: 'apply_patch',
    arguments: {
      patch: `*** Begin Patch\n*** Update File: race/f.txt\n@@\n-${SECRET}\n+PWNED\n*** End Patch`,
    },
  }),
  (i) => ({ id: `d${i}`, name: 'delete_file', arguments: { path: `race/new-${i - 1}.txt` } }),
];

async function raceFor(forceJavaScript: boolean) {
  const { root, outside } = world();
  const before = snapshotTree(outside);
  // The guard is off so that every write attempt reaches the disk-facing code.
  const gate = createToolgate({
    config: validateConfig({
      tools: { approval: { mode: 'auto' }, edit: { require_read_before_write: false } },
    }),
    roots: [root],
    approver: approveAll,
  });
  gate.registry.replace(createGrepTool({ forceJavaScript }));
  gate.registry.replace(createGlobTool({ forceJavaScript }));
  const attacker = spawn(process.execPath, [SWAPPER, root, String(DURATION_MS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let swaps = '';
  attacker.stdout.on('data', (d) => {
    swaps += d;
  });
  const done = new Promise((resolve) => attacker.once('close', resolve));
  const leaks: string[] = [];
  let calls = 0;
  let succeeded = 0;
  const end = Date.now() + DURATION_MS;
  for (let i = 0; Date.now() < end; i++) {
    const batch = ATTEMPTS.map((make) => make(i));
    const results = await gate.execute(batch);
    calls += results.length;
    for (const r of results) {
      if (r.ok) succeeded++;
      if (r.content.includes(SECRET) || r.content.includes(OUTSIDE_NAME))
        leaks.push(`${r.name}: ${r.content.slice(0, 200)}`);
    }
  }
  await done;
  return {
    leaks,
    calls,
    succeeded,
    swaps: Number(swaps),
    outsideAfter: snapshotTree(outside),
    before,
    outside,
  };
}

describe('security: symlink races (a real concurrent attacker process)', () => {
  for (const js of [false, true]) {
    it(`zero leaks and zero outside writes while directories and files are swapped for links (grep and glob: ${js ? 'javascript' : 'ripgrep'})`, async () => {
      const r = await raceFor(js);
      expect(r.swaps, JSON.stringify({ ...r, before: undefined, outsideAfter: undefined })).toBeGreaterThan(
        1000,
      ); // the attacker really ran
      expect(r.calls).toBeGreaterThan(100);
      expect(r.succeeded).toBeGreaterThan(0); // and tools still worked whenever the world was honest
      expect(r.leaks).toEqual([]);
      expect(r.outsideAfter).toEqual(r.before);
      expect(existsSync(path.join(r.outside, 'new-0.txt'))).toBe(false);
    }, 30_000);
  }
});
