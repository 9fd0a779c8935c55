// Start-up (issue #14 item 3): from spawning `toolgate mcp` to its answer to tools/list, against the
// official MCP filesystem server, warm and cold; `toolgate exec` of one read against `node -e 0`.
// Interleaved as in mcp-vs-filesystem.js: every round spawns each process once, fresh, in turn (the
// order alternating), so drift in the machine's speed falls on all alike; medians are reported.
//
// Warm: the files are in the page cache (a server started again). Cold: before each spawn every file
// under node_modules/, dist/ and bin/ is dropped from the page cache (posix_fadvise DONTNEED, after a
// sync, through python3), as on the first start after an install or a reboot; the node binary and
// files another process has mapped (a native module in use elsewhere) stay cached. Without python3
// the cold rows are skipped.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(REPO, 'bin/toolgate.js');
const FILESYSTEM = path.join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Milliseconds from spawn to the answer to tools/list (after initialize), then the server is
 * stopped (its stdin closed, as a client leaving). Also the number of tools and the answer itself.
 */
export function mcpToolsList(command, args, { cwd = REPO, env = process.env } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    let buffer = '';
    let tools = 0;
    let list;
    let elapsed;
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (elapsed === undefined)
        reject(new Error(`${args.join(' ')} exited (${code ?? signal}) before tools/list`));
      else resolve({ ms: elapsed, tools, list });
    });
    const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (message.id === 1) {
          send({ method: 'notifications/initialized' });
          send({ id: 2, method: 'tools/list' });
        } else if (message.id === 2) {
          elapsed = performance.now() - t0;
          list = message.result;
          tools = list?.tools?.length ?? 0;
          child.stdin.end(); // the client leaving ends the session
          setTimeout(() => child.kill('SIGKILL'), 5000).unref();
        }
      }
    });
    send({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    });
  });
}

/** Milliseconds from spawn to exit, with `input` on stdin; stdout is returned to be checked. */
export function runToExit(command, args, { cwd = REPO, input = '', env = process.env } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.on('error', reject);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.on('exit', (code) => resolve({ ms: performance.now() - t0, code, stdout }));
    child.stdin.end(input);
  });
}

const EVICT = `
import os, sys
os.sync()
for top in sys.argv[1:]:
    for dirpath, dirnames, filenames in os.walk(top):
        for name in filenames:
            try:
                fd = os.open(os.path.join(dirpath, name), os.O_RDONLY | os.O_NOFOLLOW)
            except OSError:
                continue
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
`;

/** Drops the repository's code and dependencies from the page cache; false when it cannot. */
export function evictPageCache() {
  const out = spawnSync(
    'python3',
    ['-c', EVICT, ...['node_modules', 'dist', 'bin'].map((d) => path.join(REPO, d))],
    { stdio: 'ignore' },
  );
  return out.status === 0;
}

export async function startup({ rounds = 15, coldRounds = 9 } = {}) {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-startup-bench-')));
  writeFileSync(path.join(root, 'small.txt'), 'hello world\n'.repeat(20));
  const read = JSON.stringify([{ id: '1', name: 'read_file', arguments: { path: 'small.txt' } }]);
  // As the README sets them up: `toolgate mcp --root PROJECT` (journal on), the filesystem server
  // with the project as its one directory; `toolgate exec` in the project (journal on).
  const contenders = {
    ours: () => mcpToolsList(process.execPath, [BIN, 'mcp', '--root', root]),
    theirs: () => mcpToolsList(process.execPath, [FILESYSTEM, root]),
    exec: async () => {
      const r = await runToExit(process.execPath, [BIN, 'exec'], { cwd: root, input: read });
      const [result] = JSON.parse(r.stdout);
      if (r.code !== 0 || !result?.ok || !result.content.startsWith('hello world'))
        throw new Error(`toolgate exec failed: ${r.stdout}`);
      return r;
    },
    node: async () => {
      const r = await runToExit(process.execPath, ['-e', '0']);
      if (r.code !== 0) throw new Error('node -e 0 failed');
      return r;
    },
  };
  const interleaved = async (names, n, before = () => {}) => {
    const times = Object.fromEntries(names.map((k) => [k, []]));
    for (let i = 0; i < n; i++) {
      const order = i % 2 ? [...names].reverse() : names;
      for (const name of order) {
        before();
        const { ms, tools } = await contenders[name]();
        if (tools !== undefined && tools === 0) throw new Error(`${name}: tools/list listed no tools`);
        times[name].push(ms);
      }
    }
    return Object.fromEntries(names.map((k) => [k, median(times[k])]));
  };

  await interleaved(['ours', 'theirs', 'exec', 'node'], 2); // the journal created, caches filled
  const warm = await interleaved(['ours', 'theirs', 'exec', 'node'], rounds);
  const canEvict = evictPageCache();
  const cold = canEvict
    ? await interleaved(['ours', 'theirs', 'exec', 'node'], coldRounds, evictPageCache)
    : undefined;

  const ms = (x) => `${x.toFixed(0)} ms`;
  const rows = [
    [
      `start-up: \`toolgate mcp\` spawn → tools/list answered, warm, median of ${rounds}`,
      ms(warm.ours),
      `server-filesystem ${ms(warm.theirs)}`,
      `${(warm.ours / warm.theirs).toFixed(2)}×`,
      '≤ 0.8× (issue #14)',
    ],
  ];
  rows.push(
    cold
      ? [
          `start-up: \`toolgate mcp\` spawn → tools/list answered, cold (page cache dropped), median of ${coldRounds}`,
          ms(cold.ours),
          `server-filesystem ${ms(cold.theirs)}`,
          `${(cold.ours / cold.theirs).toFixed(2)}×`,
          '≤ 0.8× (issue #14)',
        ]
      : ['start-up: `toolgate mcp`, cold', 'skipped', 'needs python3 (posix_fadvise)', '—', '≤ 0.8×'],
  );
  rows.push([
    `start-up: \`toolgate exec\` of one read_file (journal on), warm, median of ${rounds}`,
    ms(warm.exec),
    `node -e 0 ${ms(warm.node)}`,
    `${(warm.exec / warm.node).toFixed(2)}×`,
    '≤ 3× (issue #14)',
  ]);
  if (cold) {
    rows.push([
      `start-up: \`toolgate exec\` of one read_file, cold (page cache dropped), median of ${coldRounds}`,
      ms(cold.exec),
      `node -e 0 ${ms(cold.node)}`,
      `${(cold.exec / cold.node).toFixed(2)}×`,
      '—',
    ]);
  }
  return rows;
}

// `node bench/startup.js [rounds]`: these rows alone.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rounds = Number(process.argv[2] ?? 15);
  for (const r of await startup({ rounds, coldRounds: Math.max(3, Math.ceil(rounds / 2)) }))
    console.log(`| ${r.join(' | ')} |`);
}
