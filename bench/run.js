// `npm run bench`: side-by-side timings against a reference in the same run; prints a Markdown
// table for BENCHMARKS.md. Never a pass/fail: budgets are compared by a person.
import { realpathSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { approveAll, createToolgate, defineTool, Sandbox, validateConfig } from '../dist/index.js';

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

await pipelineOverhead();
sandboxCheck();

console.log(
  `Node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, ${new Date().toISOString().slice(0, 10)}\n`,
);
console.log('| benchmark | toolgate | reference | ratio / overhead | budget |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
