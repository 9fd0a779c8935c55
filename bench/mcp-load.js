// Issue #14 item 6: `toolgate mcp --http`, journal on, under 50 concurrent client sessions × 1,000
// mixed calls each (reads, greps, writes, a few slow run_commands), against the same load on
// server-filesystem over its own transport (stdio: one process per session, as a host runs it).
//
//   node bench/mcp-load.js                       the load (50 × 1,000), prints the rows
//   TOOLGATE_LOAD_SESSIONS=10 TOOLGATE_LOAD_CALLS=100 node bench/mcp-load.js   a quick try
//   TOOLGATE_LOAD_REFERENCE=0 …                  toolgate only
//
// Checked, not only timed: every result's content (a read returns the file, a read of the
// session's own file returns its last write, a grep finds its 10 files), errors counted, and after
// the server stops every call is in the journal with its result and no batch is left incomplete.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** `mcp --http` needs a bearer token on loopback too (issue #30 §6). */
const BENCH_TOKEN = randomBytes(24).toString('hex');

import { SqliteJournal } from '../dist/journal/sqlite-journal.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const READ_FILES = 100;
const CODE_FILES = 200;
const NEEDLES = 20; // each needle is in CODE_FILES / NEEDLES files
const OWN_FILES = 5; // files each session writes (and reads back)
const SLOW_COMMAND = 'sleep 1';

const envInt = (name, fallback) => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${v}"`);
  return n;
};

const quantile = (sorted, q) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: quantile(s, 0.5), p99: quantile(s, 0.99) };
};
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const pp = (s) => `p50 ${fmt(s.p50)} / p99 ${fmt(s.p99)} ms`;
const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`;
const thousands = (n) => n.toLocaleString('en-US');

function readFileContent(f) {
  return `${Array.from({ length: 20 }, (_, l) => `file ${f} line ${l} ${'r'.repeat(20)}`).join('\n')}\n`;
}

/** The workspace: files to read, a tree to search, one directory per session for its writes. */
function makeRoot(sessions) {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-load-')));
  mkdirSync(path.join(root, 'read'));
  for (let f = 0; f < READ_FILES; f++)
    writeFileSync(path.join(root, 'read', `f${f}.txt`), readFileContent(f));
  for (let d = 0; d < 10; d++) mkdirSync(path.join(root, 'code', `d${d}`), { recursive: true });
  for (let f = 0; f < CODE_FILES; f++) {
    const needle = f % NEEDLES;
    const text = `const a${f} = 1;\n// needle-${needle}x marks this file\n${'filler line\n'.repeat(30)}`;
    writeFileSync(path.join(root, 'code', `d${f % 10}`, `m${f}-n${needle}x.txt`), text);
  }
  for (let k = 0; k < sessions; k++) mkdirSync(path.join(root, `s${k}`));
  // write_file and `sleep` run without asking; everything else is the default policy.
  writeFileSync(
    path.join(root, 'toolgate.toml'),
    '[tools.approval]\nallowlist = ["write_file"]\ndenylist = []\n\n[tools.run_command]\nallow = ["sleep"]\n',
  );
  return root;
}

/** Which call session k makes as its i-th: a few slow commands spread out, else 6 reads : 2 greps : 2 writes. */
function slowSlots(k, sessions, calls) {
  const slow = Math.max(1, Math.min(5, Math.floor(calls / 20)));
  const stride = Math.floor(calls / slow);
  // Staggered by session, so slow calls are spread over the run rather than all at once.
  const offset = Math.floor((k * stride) / sessions);
  return new Set(Array.from({ length: slow }, (_, j) => (j * stride + offset) % calls));
}

function callKind(i, slow) {
  if (slow.has(i)) return 'slow';
  const r = i % 10;
  if (r < 5) return 'read';
  if (r === 5) return 'readOwn';
  if (r < 8) return 'grep';
  return 'write';
}

/**
 * One session's i-th call for toolgate (relative paths) or server-filesystem (absolute paths):
 * the tool, its arguments, and a check of the answer's text (undefined: fine).
 */
function makeCall(target, root, k, i, kind, lastWrite) {
  const abs = (p) => (target === 'toolgate' ? p : path.join(root, p));
  const tg = target === 'toolgate';
  switch (kind) {
    case 'read': {
      const f = (k * 7 + i) % READ_FILES;
      const want = readFileContent(f);
      return {
        name: tg ? 'read_file' : 'read_text_file',
        arguments: { path: abs(`read/f${f}.txt`) },
        check: (text) => (text === want ? undefined : `read/f${f}.txt: unexpected content`),
      };
    }
    case 'readOwn': {
      const file = `s${k}/w${Math.floor(i / 10) % OWN_FILES}.txt`;
      const want = lastWrite.get(file);
      if (want === undefined) return makeCall(target, root, k, i, 'read', lastWrite);
      return {
        name: tg ? 'read_file' : 'read_text_file',
        arguments: { path: abs(file) },
        check: (text) => (text === want ? undefined : `${file}: not the session's last write`),
      };
    }
    case 'grep': {
      const needle = (k + i) % NEEDLES;
      const expect = CODE_FILES / NEEDLES;
      const count = (text) =>
        text.split('\n').filter((l) => l.includes(tg ? `needle-${needle}x` : `-n${needle}x.txt`)).length;
      return tg
        ? {
            name: 'grep',
            arguments: { pattern: `needle-${needle}x`, path: 'code', fixed_strings: true },
            check: (text) =>
              count(text) === expect ? undefined : `grep needle-${needle}x: ${count(text)} matches`,
          }
        : {
            // server-filesystem has no content search: its name search over the same tree finds the same 10 files.
            name: 'search_files',
            arguments: { path: abs('code'), pattern: `**/*-n${needle}x.txt` },
            check: (text) => (count(text) === expect ? undefined : `search_files: ${count(text)} found`),
          };
    }
    case 'write': {
      const file = `s${k}/w${Math.floor(i / 10) % OWN_FILES}.txt`;
      const content = `session ${k} call ${i}\n${'w'.repeat(500)}\n`;
      lastWrite.set(file, content);
      return {
        name: 'write_file',
        arguments: tg ? { path: file, content, overwrite: true } : { path: abs(file), content },
        check: () => undefined,
      };
    }
    case 'slow':
      return {
        name: 'run_command',
        arguments: { command: SLOW_COMMAND },
        check: () => undefined,
      };
  }
  throw new Error(kind);
}

/** VmRSS and VmHWM of a process, in kB. */
function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return { rss: Number.NaN, hwm: Number.NaN };
  }
}

/**
 * Slow commands start only in the first second of every 4 s (a session whose slow call comes up
 * meanwhile makes its next fast calls first), so the run has stretches with slow commands running
 * and stretches without any, under the same load: the head-of-line comparison.
 */
const SLOW_PERIOD_MS = 4000;
const SLOW_OPEN_MS = 1000;
/**
 * TOOLGATE_LOAD_SLOW=idle: the control for the head-of-line rows. A session at a slow slot waits
 * 1 s on its own side instead of calling `sleep 1`, in the same windows: what is left of the
 * difference between the two groups then is the shape of the run, not the slow commands.
 */
const IDLE_CONTROL = process.env.TOOLGATE_LOAD_SLOW === 'idle';

/**
 * Drives `sessions` clients at once, each making its calls one after another (as an agent does),
 * and records every call's latency and whether a slow command of another session was running.
 */
async function drive(target, root, clients, calls, onProgress) {
  const sessions = clients.length;
  const latency = { read: [], readOwn: [], grep: [], write: [], slow: [] };
  // Fast calls by kind: issued while another session's slow command ran / with none running at all.
  const fastWithSlow = { read: [], readOwn: [], grep: [], write: [] };
  const fastWithoutSlow = { read: [], readOwn: [], grep: [], write: [] };
  const errors = [];
  let slowInFlight = 0;
  let slowStarted = 0;
  let done = 0;
  const start = performance.now();
  const slowMayStart = () => (performance.now() - start) % SLOW_PERIOD_MS < SLOW_OPEN_MS;
  const untilSlowMayStart = () =>
    new Promise((resolve) =>
      setTimeout(resolve, SLOW_PERIOD_MS - ((performance.now() - start) % SLOW_PERIOD_MS)),
    );
  const one = async (client, k, i, kind, lastWrite) => {
    const call = makeCall(target, root, k, i, kind, lastWrite);
    const others = slowInFlight; // this session's own calls run one at a time: these are others'
    const startedBefore = slowStarted;
    if (kind === 'slow') {
      slowInFlight++;
      slowStarted++;
    }
    const t = performance.now();
    let problem;
    try {
      if (kind === 'slow' && IDLE_CONTROL) {
        // The control: the session just waits as long, no command runs (nothing is counted as a call).
        await new Promise((resolve) => setTimeout(resolve, 1000));
        slowInFlight--;
        return;
      }
      const r = await client.callTool({ name: call.name, arguments: call.arguments });
      const text = r.content?.[0]?.text ?? '';
      problem = r.isError ? `${call.name}: ${text.slice(0, 200)}` : call.check(text);
    } catch (error) {
      problem = `${call.name} threw: ${error.message}`;
    }
    const ms = performance.now() - t;
    if (kind === 'slow') slowInFlight--;
    else if (others > 0) fastWithSlow[kind].push(ms);
    else if (slowStarted === startedBefore) fastWithoutSlow[kind].push(ms); // none ran at any point of it
    latency[kind].push(ms);
    if (problem) errors.push(`session ${k} call ${i}: ${problem}`);
    onProgress(++done);
  };
  await Promise.all(
    clients.map(async (client, k) => {
      const slow = target === 'toolgate' ? slowSlots(k, sessions, calls) : new Set();
      const lastWrite = new Map();
      let pendingSlow = 0;
      for (let i = 0; i < calls; i++) {
        if (slow.has(i)) pendingSlow++;
        else await one(client, k, i, callKind(i, slow), lastWrite);
        if (pendingSlow > 0 && slowMayStart()) {
          pendingSlow--;
          await one(client, k, i, 'slow', lastWrite);
        }
      }
      for (; pendingSlow > 0; pendingSlow--) {
        if (!slowMayStart()) await untilSlowMayStart();
        await one(client, k, calls, 'slow', lastWrite);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return { seconds, latency, fastWithSlow, fastWithoutSlow, errors, total: done };
}

/** Samples a set of processes' memory every 200 ms; `at(fraction)` is the sample nearest that point of the run. */
function memorySampler(pids, total) {
  const samples = [];
  let progress = 0;
  const take = () => {
    let rss = 0;
    let hwm = 0;
    for (const pid of pids) {
      const m = memoryOf(pid);
      rss += m.rss;
      hwm += m.hwm;
    }
    samples.push({ progress, rss, hwm });
  };
  take();
  const idle = samples[0];
  const timer = setInterval(take, 200);
  return {
    progress: (n) => {
      progress = n;
    },
    stop: () => {
      clearInterval(timer);
      take();
      const at = (fraction) => samples.find((s) => s.progress >= fraction * total) ?? samples.at(-1);
      const top = samples.reduce((a, b) => (b.rss > a.rss ? b : a));
      return { idle, at10: at(0.1), at50: at(0.5), end: samples.at(-1), top, samples };
    },
  };
}

/** Starts `toolgate mcp --http 127.0.0.1:0` (journal on, the default) and waits for its URL. */
function startToolgate(root) {
  const child = spawn(
    process.execPath,
    [
      path.join(REPO, 'bin', 'toolgate.js'),
      'mcp',
      '--config',
      path.join(root, 'toolgate.toml'),
      '--root',
      root,
      '--http',
      '0',
    ],
    {
      cwd: root,
      env: { ...process.env, TOOLGATE_MCP_TOKEN: BENCH_TOKEN },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  const url = new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /(http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) resolve(new URL(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`toolgate exited ${code}: ${stderr}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, url, exited };
}

/** Every call in the journal with its result, per session in call-id order; no batch incomplete. */
function checkJournal(file, sessions, calls) {
  const journal = SqliteJournal.open(file);
  try {
    const incomplete = journal.incompleteBatches().length;
    const summaries = journal.recentBatches(sessions * calls * 2 + 100);
    const bySession = new Map();
    let rows = 0;
    let withResult = 0;
    let failed = 0;
    for (const s of summaries) {
      const batch = journal.batch(s.id);
      for (const c of batch?.calls ?? []) {
        rows++;
        if (c.result && c.status === 'done') withResult++;
        if (c.result && !c.result.ok) failed++;
        const ids = bySession.get(s.session) ?? new Set();
        bySession.set(s.session, ids);
        ids.add(c.id);
      }
    }
    // Each MCP session numbers its calls mcp-1, mcp-2, …: all of them, once each.
    let sessionsComplete = 0;
    for (const ids of bySession.values()) {
      let all = ids.size === calls;
      for (let i = 1; all && i <= calls; i++) all = ids.has(`mcp-${i}`);
      if (all) sessionsComplete++;
    }
    return { rows, withResult, failed, incomplete, sessions: bySession.size, sessionsComplete };
  } finally {
    journal.close();
  }
}

async function runToolgate(root, sessions, calls) {
  const server = startToolgate(root);
  const url = await server.url;
  const transports = [];
  const clients = await Promise.all(
    Array.from({ length: sessions }, async () => {
      const client = new Client({ name: 'load', version: '1' });
      const transport = new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${BENCH_TOKEN}` } },
      });
      transports.push(transport);
      await client.connect(transport);
      return client;
    }),
  );
  const total = sessions * calls;
  const memory = memorySampler([server.child.pid], total);
  const run = await drive('toolgate', root, clients, calls, memory.progress);
  const mem = memory.stop();
  // Sessions end as a host ends them (DELETE), then the server is stopped and its journal closed.
  await Promise.all(transports.map((t) => t.terminateSession().catch(() => {})));
  await Promise.all(clients.map((c) => c.close()));
  server.child.kill('SIGTERM');
  const exit = await server.exited;
  // In the control, a slow slot is a wait on the client's side, not a call.
  const made = calls - (IDLE_CONTROL ? slowSlots(0, sessions, calls).size : 0);
  const journal = checkJournal(path.join(root, '.toolgate', 'journal.db'), sessions, made);
  return { ...run, mem, journal, exit };
}

async function runReference(root, sessions, calls) {
  const transports = [];
  const clients = await Promise.all(
    Array.from({ length: sessions }, async () => {
      const client = new Client({ name: 'load', version: '1' });
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [path.join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), root],
        stderr: 'ignore',
      });
      transports.push(transport);
      await client.connect(transport);
      return client;
    }),
  );
  const memory = memorySampler(
    transports.map((t) => t.pid),
    sessions * calls,
  );
  const run = await drive('reference', root, clients, calls, memory.progress);
  const mem = memory.stop();
  await Promise.all(clients.map((c) => c.close()));
  return { ...run, mem };
}

export async function mcpLoad() {
  const sessions = envInt('TOOLGATE_LOAD_SESSIONS', 50);
  const calls = envInt('TOOLGATE_LOAD_CALLS', 1000);
  const withReference = process.env.TOOLGATE_LOAD_REFERENCE !== '0';
  const total = sessions * calls;
  const label = `${sessions} sessions × ${thousands(calls)} calls at once`;
  const root = makeRoot(sessions);
  const refRoot = withReference ? makeRoot(sessions) : undefined;
  try {
    const ours = await runToolgate(root, sessions, calls);
    const theirs = refRoot ? await runReference(refRoot, sessions, calls) : undefined;
    const slowPer = slowSlots(0, sessions, calls).size;
    const rows = [];
    const ref = (f) => (theirs ? f(theirs) : 'not run');
    const ratio = (a, b) => (theirs ? `${(a / b).toFixed(2)}×` : '—');
    const oursRate = ours.total / ours.seconds;
    const theirRate = theirs ? theirs.total / theirs.seconds : Number.NaN;
    rows.push([
      `MCP load: ${label} (6 reads : 2 greps : 2 writes, + ${slowPer} × \`${SLOW_COMMAND}\` per session for toolgate), throughput`,
      `${fmt(oursRate)} calls/s (${ours.seconds.toFixed(1)} s)`,
      ref(
        (t) =>
          `server-filesystem, ${sessions} stdio processes: ${fmt(theirRate)} calls/s (${t.seconds.toFixed(1)} s)`,
      ),
      ratio(oursRate, theirRate),
      '—',
    ]);
    const reads = (r) => stats([...r.latency.read, ...r.latency.readOwn]);
    rows.push([
      'MCP load: read_file latency',
      pp(reads(ours)),
      ref((t) => `read_text_file ${pp(reads(t))}`),
      theirs
        ? `${ratio(reads(ours).p50, reads(theirs).p50)} / ${ratio(reads(ours).p99, reads(theirs).p99)}`
        : '—',
      '—',
    ]);
    const grepS = stats(ours.latency.grep);
    rows.push([
      'MCP load: grep latency (content search, 200 files; ripgrep child per call)',
      pp(grepS),
      ref((t) => `search_files (name search, no content search) ${pp(stats(t.latency.grep))}`),
      theirs
        ? `${ratio(grepS.p50, stats(theirs.latency.grep).p50)} / ${ratio(grepS.p99, stats(theirs.latency.grep).p99)}`
        : '—',
      '—',
    ]);
    const writeS = stats(ours.latency.write);
    rows.push([
      'MCP load: write_file latency (fsync of the file, and of the journal before it)',
      pp(writeS),
      ref((t) => `write_file (no fsync) ${pp(stats(t.latency.write))}`),
      theirs
        ? `${ratio(writeS.p50, stats(theirs.latency.write).p50)} / ${ratio(writeS.p99, stats(theirs.latency.write).p99)}`
        : '—',
      '—',
    ]);
    const slowS = stats(ours.latency.slow);
    rows.push([
      `MCP load: run_command \`${SLOW_COMMAND}\` (${slowS.n} calls) latency`,
      pp(slowS),
      'no command tool',
      `+${fmt(slowS.p50 - 1000)} ms over the sleep (p50)`,
      '—',
    ]);
    const slowName = IDLE_CONTROL ? 'idle wait (control, TOOLGATE_LOAD_SLOW=idle)' : 'slow command';
    // By kind: a p50 over all fast calls together mostly says how many of each kind fell in each group.
    for (const [what, kinds] of [
      ['read_file', ['read', 'readOwn']],
      ['grep', ['grep']],
      ['write_file', ['write']],
    ]) {
      const withSlow = stats(kinds.flatMap((kind) => ours.fastWithSlow[kind]));
      const withoutSlow = stats(kinds.flatMap((kind) => ours.fastWithoutSlow[kind]));
      rows.push([
        `MCP load: head-of-line check, ${what} issued while another session’s ${slowName} runs / with none running from start to end (they start in the first second of every 4 s)`,
        `${pp(withSlow)} (${thousands(withSlow.n)} calls)`,
        `none running ${pp(withoutSlow)} (${thousands(withoutSlow.n)} calls)`,
        `${(withSlow.p50 / withoutSlow.p50).toFixed(2)}× / ${(withSlow.p99 / withoutSlow.p99).toFixed(2)}×`,
        'no slower',
      ]);
    }
    rows.push([
      'MCP load: errors (an error result, a throw, or a wrong answer)',
      `${ours.errors.length} of ${thousands(ours.total)}`,
      ref((t) => `${t.errors.length} of ${thousands(t.total)}`),
      '—',
      '0',
    ]);
    const j = ours.journal;
    rows.push([
      'MCP load: journal after the run (every call with its result; sessions with calls mcp-1…N all present)',
      `${thousands(j.withResult)} of ${thousands(ours.total)} calls with a result (${j.failed} failed); ${j.sessionsComplete} of ${sessions} sessions whole; ${j.incomplete} incomplete batches`,
      ref(() => 'no journal'),
      `${thousands(j.rows - j.withResult)} rows without a result`,
      'all, 0 incomplete',
    ]);
    const m = ours.mem;
    rows.push([
      'MCP load: toolgate RSS (one process): idle after connect / at 10% / 50% / end of the calls, peak (VmHWM)',
      `${mb(m.idle.rss)} / ${mb(m.at10.rss)} / ${mb(m.at50.rss)} / ${mb(m.end.rss)}, peak ${mb(m.end.hwm)} (highest sample ${mb(m.top.rss)} at ${Math.round((100 * m.top.progress) / total)}% of the calls)`,
      ref(
        (t) =>
          `server-filesystem, sum of ${sessions} processes: ${mb(t.mem.idle.rss)} / ${mb(t.mem.at10.rss)} / ${mb(t.mem.at50.rss)} / ${mb(t.mem.end.rss)}`,
      ),
      `${m.end.rss >= m.at10.rss ? '+' : ''}${mb(m.end.rss - m.at10.rss)} from 10% to end`,
      'flat',
    ]);
    if (ours.errors.length || theirs?.errors.length) {
      process.stderr.write(
        `mcp-load errors (first 10):\n${[...ours.errors, ...(theirs?.errors ?? [])].slice(0, 10).join('\n')}\n`,
      );
    }
    if (ours.exit.code !== 0) process.stderr.write(`toolgate exited ${JSON.stringify(ours.exit)}\n`);
    return rows;
  } finally {
    rmSync(root, { recursive: true, force: true });
    if (refRoot) rmSync(refRoot, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rows = await mcpLoad();
  console.log(`Node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}\n`);
  console.log('| benchmark | toolgate | reference | ratio / overhead | budget |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}
