// The shell policy's cost on a typical command line: toolgate's whole planning of a run_command
// call (parse, syntax allowlist, argument checks, policy) beside tree-sitter-bash parsing the same
// line alone (the floor any analyzer pays). Both in this process, interleaved.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createToolgate, validateConfig } from '../dist/index.js';
import { shellParser } from '../dist/tools/shell/shell-parser.js';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function shellAnalysis() {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-shell-bench-')));
  writeFileSync(path.join(root, 'package.json'), '{}');
  const gate = createToolgate({
    config: validateConfig({
      tools: { approval: { denylist: [] }, run_command: { allow: ['npm test', 'grep', 'wc'] } },
    }),
    roots: [root],
  });
  const command = 'npm test -- --runInBand 2>&1 | grep -v "^$" | wc -l';
  const call = { id: '1', name: 'run_command', arguments: { command } };
  await gate.prepare([call]);
  const parser = shellParser();
  for (let i = 0; i < 500; i++) gate.plan([call]); // warm-up
  const planned = [];
  const parsed = [];
  for (let i = 0; i < 2000; i++) {
    let t = performance.now();
    gate.plan([call]);
    planned.push((performance.now() - t) * 1000);
    t = performance.now();
    parser.parse(command).delete();
    parsed.push((performance.now() - t) * 1000);
  }
  const p = median(planned);
  const q = median(parsed);
  // A git command also has the repository's own config read (one `git config --list`).
  spawnSync('git', ['init', '-q'], { cwd: root });
  const git = { id: '2', name: 'run_command', arguments: { command: 'git status --short' } };
  const gitTimes = [];
  const gitVersion = [];
  for (let i = 0; i < 100; i++) {
    let t = performance.now();
    gate.plan([git]);
    gitTimes.push((performance.now() - t) * 1000);
    t = performance.now();
    spawnSync('git', ['--version']);
    gitVersion.push((performance.now() - t) * 1000);
  }
  const g = median(gitTimes);
  const v = median(gitVersion);
  return [
    [
      'shell policy: plan `git status --short` in a repository (its config read by git), median of 100',
      `${(g / 1000).toFixed(2)} ms`,
      `spawning \`git --version\` ${(v / 1000).toFixed(2)} ms`,
      `${(g / v).toFixed(2)}×`,
      '—',
    ],
    [
      `shell policy: plan a typical run_command (\`${command.replaceAll('|', '\\|')}\`), median of 2,000`,
      `${p.toFixed(0)} µs`,
      `tree-sitter-bash parse alone ${q.toFixed(0)} µs`,
      `${(p / q).toFixed(2)}×`,
      '≤ 1 ms',
    ],
  ];
}
