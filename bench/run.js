// `npm run bench`: side-by-side timings against a reference in the same run; prints a Markdown
// table for BENCHMARKS.md. Never a pass/fail: budgets are compared by a person.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { rgPath } from '@vscode/ripgrep';
import { glob as tinyglob } from 'tinyglobby';
import { z } from 'zod';
import { approveAll, createToolgate, defineTool, Sandbox, validateConfig } from '../dist/index.js';
import { journalSpeed } from './journal-speed.js';
import { mcpVsFilesystem } from './mcp-vs-filesystem.js';
import { shellAnalysis } from './shell-analysis.js';
import { streamDecode } from './stream-decode.js';

const rows = [];
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

async function pipelineOverhead() {
  const noop = () => 'ok';
  const tool = defineTool({
    name: 'noop',
    description: 'does nothing',
    args: z.strictObject({ n: z.number().int() }),
    tier: 'read_only',
    summary: () => 'noop',
    execute: async (a) => noop(a),
  });
  const gate = createToolgate({
    config: validateConfig({}),
    builtins: false,
    tools: [tool],
    approver: approveAll,
  });
  const batch = Array.from({ length: 8 }, (_, i) => ({ id: String(i), name: 'noop', arguments: { n: i } }));
  for (let i = 0; i < 2000; i++) await gate.execute(batch); // warm-up (JIT, ajv compile)
  const rounds = 20;
  const perRound = 1000;
  const pipeline = [];
  const direct = [];
  for (let r = 0; r < rounds; r++) {
    let t = performance.now();
    for (let i = 0; i < perRound; i++) await gate.execute(batch);
    pipeline.push(((performance.now() - t) * 1000) / (perRound * batch.length));
    t = performance.now();
    for (let i = 0; i < perRound * batch.length; i++) await noop({ n: i });
    direct.push(((performance.now() - t) * 1000) / (perRound * batch.length));
  }
  const p = median(pipeline);
  const d = median(direct);
  rows.push([
    'pipeline: no-op tool per call (batches of 8, no journal)',
    `${p.toFixed(2)} µs`,
    `direct call ${d.toFixed(3)} µs`,
    `overhead ${(p - d).toFixed(2)} µs`,
    '≤ 20 µs overhead',
  ]);
}

function sandboxCheck() {
  const sandbox = new Sandbox({ roots: ['.'] });
  const target = 'src/core/tool-error.ts';
  const absolute = realpathSync(target);
  const samples = (fn) => {
    for (let i = 0; i < 20000; i++) fn(); // warm-up
    const out = [];
    for (let i = 0; i < 50000; i++) {
      const t = process.hrtime.bigint();
      fn();
      out.push(Number(process.hrtime.bigint() - t) / 1000);
    }
    return median(out);
  };
  const ours = samples(() => sandbox.resolve(target));
  const ref = samples(() => realpathSync.native(absolute));
  rows.push([
    'sandbox: resolve an existing path (median)',
    `${ours.toFixed(2)} µs`,
    `realpathSync.native ${ref.toFixed(2)} µs`,
    `${(ours / ref).toFixed(2)}×`,
    '≤ 10 µs',
  ]);
}

async function timeMedian(fn, runs) {
  await fn(); // warm-up
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

const ms = (x) => `${x.toFixed(1)} ms`;

async function grepTree() {
  const gate = createToolgate({ config: validateConfig({}) });
  const args = { path: 'node_modules', pattern: 'createHash', max_results: 5000 };
  let count = 0;
  const ours = await timeMedian(async () => {
    const [r] = await gate.execute([{ id: '1', name: 'grep', arguments: args }]);
    count = r.metadata?.matches ?? 0;
  }, 7);
  // The same work for ripgrep: toolgate searches a folder named explicitly whole, minus the other
  // rules (so node_modules/*/node_modules too), where ripgrep alone also skips the nested
  // node_modules by the line that names the folder. Given the rules toolgate applies there (the
  // workspace's .gitignore without that line), ripgrep finds the same lines.
  const sameRules = path.join(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-')), 'rules');
  writeFileSync(
    sameRules,
    readFileSync('.gitignore', 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== 'node_modules/')
      .join('\n'),
  );
  const rgJson = async (ignore) => {
    let found = 0;
    const took = await timeMedian(async () => {
      const out = spawnSync(
        rgPath,
        [
          '--json',
          '--no-config',
          ...ignore,
          '--ignore-case',
          '--glob',
          '!.git',
          '--regexp',
          'createHash',
          '--',
          '.',
        ],
        { cwd: 'node_modules', maxBuffer: 1 << 28, encoding: 'utf8' },
      );
      found = out.stdout.split('\n').filter((l) => l.startsWith('{"type":"match"')).length;
    }, 7);
    return { ms: took, found };
  };
  const same = await rgJson(['--no-ignore', '--ignore-file', sameRules]);
  const own = await rgJson(['--no-require-git']);
  rows.push([
    `grep "createHash" over node_modules (${count} matches; rg given the same rules: ${same.found})`,
    ms(ours),
    `rg --json directly, same rules ${ms(same.ms)} (its own ignore files: ${ms(own.ms)}, ${own.found} matches)`,
    `${(ours / same.ms).toFixed(2)}×`,
    '≤ 1.3×',
  ]);
}

async function globTree() {
  const gate = createToolgate({ config: validateConfig({}) });
  let count = 0;
  const ours = await timeMedian(async () => {
    const [r] = await gate.execute([
      { id: '1', name: 'glob', arguments: { path: 'node_modules', pattern: '**/*.js', max_results: 10000 } },
    ]);
    count = r.metadata?.matches ?? 0;
  }, 7);
  let refCount = 0;
  const ref = await timeMedian(async () => {
    const found = await tinyglob('**/*.js', {
      cwd: 'node_modules',
      followSymbolicLinks: false,
      expandDirectories: false,
    });
    refCount = found.length;
  }, 7);
  // The same walk as a person would type it: ripgrep applies its own ignore rules (the workspace's
  // .gitignore lists node_modules/, so it also skips the node_modules nested inside).
  let rgCount = 0;
  const rg = await timeMedian(() => {
    const { stdout } = spawnSync(rgPath, ['--files', '--no-config', '--glob', '**/*.js'], {
      cwd: 'node_modules',
      maxBuffer: 1 << 28,
    });
    rgCount = stdout.toString().split('\n').length - 1;
  }, 7);
  // Fewer files than tinyglobby: the workspace's .gitignore (dist/) is honoured below node_modules.
  rows.push([
    `glob "**/*.js" over node_modules (${count} files; tinyglobby: ${refCount})`,
    ms(ours),
    `tinyglobby alone ${ms(ref)}`,
    `${(ours / ref).toFixed(2)}×`,
    '≤ 1.3×',
  ]);
  rows.push([
    `glob "**/*.js" over node_modules (${count} files; rg --files: ${rgCount})`,
    ms(ours),
    `rg --files --glob alone ${ms(rg)}`,
    `${(ours / rg).toFixed(2)}×`,
    '≤ 1.3×',
  ]);
}

async function readTail() {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-')));
  const lines = Array.from({ length: 40_000 }, (_, i) => `line ${i} ${'x'.repeat(40)}`);
  writeFileSync(path.join(dir, 'big.txt'), `${lines.join('\n')}\n`);
  const size = readFileSync(path.join(dir, 'big.txt')).length;
  const gate = createToolgate({ config: validateConfig({}), roots: [dir] });
  const args = { path: 'big.txt', start_line: 39_951, end_line: 40_000 };
  const ours = await timeMedian(async () => {
    const [r] = await gate.execute([{ id: '1', name: 'read_file', arguments: args }]);
    if (!r.ok) throw new Error(r.content);
  }, 30);
  const ref = await timeMedian(() => {
    readFileSync(path.join(dir, 'big.txt'), 'utf8').split('\n').slice(39_950, 40_000).join('\n');
  }, 30);
  rows.push([
    `read_file: last 50 lines of a ${(size / 1e6).toFixed(1)} MB file`,
    ms(ours),
    `readFileSync + split ${ms(ref)}`,
    `${(ours / ref).toFixed(2)}×`,
    '—',
  ]);
}

await pipelineOverhead();
rows.push(...(await journalSpeed()));
rows.push(...(await (await import('./big-output.js')).bigOutput())); // 1 GB through run_command: exec and MCP
rows.push(...(await mcpVsFilesystem()));
rows.push(...(await (await import('./startup.js')).startup())); // spawn → tools/list, exec: warm and cold
rows.push(...(await (await import('./mcp-load.js')).mcpLoad())); // 50 sessions × 1,000 calls over HTTP: minutes
rows.push(...streamDecode());
sandboxCheck();
rows.push(...(await shellAnalysis()));
await grepTree();
await globTree();
await readTail();
rows.push(...(await (await import('./web-fetch.js')).webFetchBench())); // 1 MB page: web_fetch vs undici fetch
rows.push(...(await (await import('./memory-search.js')).memorySearchBench())); // 10,000 notes: FTS5, hybrid
rows.push(...(await (await import('./telemetry-overhead.js')).telemetryOverhead())); // no SDK, in-memory SDK
rows.push(...(await (await import('./journal-scale.js')).journalScale())); // 1,000,000 calls: size, list/show/recover, export
rows.push(...(await (await import('./shell-session.js')).shellSession())); // run_command: session shell vs host shell
rows.push(...(await (await import('./pg-journal.js')).pgJournalBench())); // PostgreSQL journal commits vs pgbench
rows.push(...(await (await import('./pg-workers.js')).pgWorkersBench())); // workers on one database; answer → resume

console.log(
  `Node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, ${new Date().toISOString().slice(0, 10)}\n`,
);
console.log('| benchmark | toolgate | reference | ratio / overhead | budget |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
