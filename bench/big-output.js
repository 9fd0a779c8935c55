// run_command printing 1 GB (issue #14 item 7), against the same producer into `cat > /dev/null`.
// Interleaved rounds, each process fresh, medians reported:
//   exec: `toolgate exec` running the command, whole process (start-up included) to exit;
//   mcp:  `toolgate mcp` on stdio with progress asked for, from tools/call to its result, the client
//         reading every notification off the pipe (a client that keeps up);
//   sdk:  the same through the official TypeScript SDK client with an onprogress handler (its own
//         JSON and schema work per notification runs on the same cores);
//   floor: bench/minimal-relay.mjs in toolgate's place, to the same client as `mcp`: what a Node
//         stdio server that only passes the bytes on costs on this machine (processes, pipes,
//         streams), so the `mcp` row can be read against what is possible here.
// Peak RSS is the toolgate process's high-water mark (VmHWM).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(REPO, 'bin/toolgate.js');
const PEAK = path.join(REPO, 'bench/report-peak-rss.mjs');
const RELAY = path.join(REPO, 'bench/minimal-relay.mjs');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function workspace(bytes) {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-big-')));
  writeFileSync(
    path.join(root, 'toolgate.toml'),
    '[tools.approval]\ndenylist = []\n[tools.run_command]\nallow = ["sh gen.sh"]\n',
  );
  writeFileSync(path.join(root, 'gen.sh'), `head -c ${bytes} /dev/zero | tr '\\0' 'x'\n`);
  return root;
}

function reference(bytes) {
  const t = performance.now();
  spawnSync('sh', ['-c', `head -c ${bytes} /dev/zero | tr '\\0' 'x' | cat > /dev/null`]);
  return (performance.now() - t) / 1000;
}

function viaExec(root) {
  const t = performance.now();
  const out = spawnSync(
    process.execPath,
    ['--import', PEAK, BIN, 'exec', '--config', path.join(root, 'toolgate.toml')],
    {
      cwd: root,
      input: JSON.stringify([{ id: '1', name: 'run_command', arguments: { command: 'sh gen.sh' } }]),
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    },
  );
  const seconds = (performance.now() - t) / 1000;
  const [result] = JSON.parse(out.stdout);
  if (!result?.ok) throw new Error(`exec: ${out.stdout.slice(0, 300)} ${out.stderr}`);
  return { seconds, peak: Number(/peak-rss (\d+)/.exec(out.stderr)?.[1]) };
}

const highWater = (pid) =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

/** A stdio client that reads every notification's bytes off the pipe and only counts them. */
function viaMcp(root, bytes, args = [BIN, 'mcp', '--config', path.join(root, 'toolgate.toml')]) {
  return new Promise((resolve, reject) => {
    const server = spawn(process.execPath, args, { cwd: root, stdio: ['pipe', 'pipe', 'ignore'] });
    const send = (m) => server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    let t0;
    let received = 0;
    let tail = ''; // the last bytes seen: responses are short lines at the end of what came
    server.on('error', reject);
    server.stdout.on('data', (chunk) => {
      received += chunk.length;
      // Progress lines are only counted; the responses are found at the end of what came so far.
      tail = (tail + chunk.toString('latin1', Math.max(0, chunk.length - 256))).slice(-512);
      if (t0 === undefined && tail.includes('"id":1}')) {
        send({ method: 'notifications/initialized' });
        t0 = performance.now();
        send({
          id: 2,
          method: 'tools/call',
          params: { name: 'run_command', arguments: { command: 'sh gen.sh' }, _meta: { progressToken: 1 } },
        });
      } else if (t0 !== undefined && tail.includes('"id":2}')) {
        const seconds = (performance.now() - t0) / 1000;
        const peak = highWater(server.pid);
        server.kill('SIGKILL');
        if (received < bytes) reject(new Error(`mcp: ${received} bytes arrived, fewer than the output`));
        else resolve({ seconds, peak });
      }
    });
    send({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '0' },
      },
    });
  });
}

async function viaSdk(root, bytes) {
  const client = new Client({ name: 'bench', version: '0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--config', path.join(root, 'toolgate.toml')],
    cwd: root,
  });
  await client.connect(transport);
  let streamed = 0;
  const cpu0 = process.cpuUsage();
  const t = performance.now();
  const result = await client.callTool(
    { name: 'run_command', arguments: { command: 'sh gen.sh' } },
    undefined,
    {
      onprogress: (p) => {
        streamed += p.message?.length ?? 0;
      },
      timeout: 600_000,
    },
  );
  const seconds = (performance.now() - t) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const peak = highWater(transport.pid);
  await client.close();
  // The SDK client may drop a notification read with the response (see test/mcp/mcp-stdio.test.ts).
  if (result.isError || streamed < bytes - (1 << 20))
    throw new Error(`sdk: ${streamed} of ${bytes} streamed`);
  return { seconds, peak, clientCpu: (cpu.user + cpu.system) / 1e6 };
}

export async function bigOutput({ rounds = 3, bytes = 1024 * 1024 * 1024 } = {}) {
  const root = workspace(bytes);
  const r = { ref: [], exec: [], mcp: [], sdk: [], floor: [] };
  for (let i = 0; i < rounds; i++) {
    r.ref.push({ seconds: reference(bytes) });
    r.exec.push(viaExec(root));
    r.mcp.push(await viaMcp(root, bytes));
    r.sdk.push(await viaSdk(root, bytes));
    r.floor.push(await viaMcp(root, bytes, [RELAY]));
  }
  const s = (k) => median(r[k].map((x) => x.seconds));
  const peak = (k) => Math.max(...r[k].map((x) => x.peak));
  const mbps = (secs) => `${(bytes / secs / 1e6).toFixed(0)} MB/s`;
  const ref = s('ref');
  const refText = `same producer into cat > /dev/null: ${ref.toFixed(2)} s (${mbps(ref)})`;
  const row = (label, k, extra = '', budget = '≤ 1.3×, ≤ 120 MB') => [
    `run_command printing 1 GB, ${label}`,
    `${s(k).toFixed(2)} s (${mbps(s(k))}); peak RSS ${(peak(k) / 1e6).toFixed(0)} MB${extra}`,
    refText,
    `${(s(k) / ref).toFixed(2)}× the time`,
    budget,
  ];
  const clientCpu = median(r.sdk.map((x) => x.clientCpu));
  return [
    row('`toolgate exec` (whole process, start-up included)', 'exec'),
    row('`toolgate mcp`, every byte as progress to a client that keeps up', 'mcp'),
    row(
      '`toolgate mcp`, progress to the official SDK client',
      'sdk',
      `; the client itself used ${clientCpu.toFixed(1)} s of CPU`,
    ),
    row(
      'the floor: bench/minimal-relay.mjs (a Node stdio server that only relays the bytes, no checks, no copies, no journal) to the same client as the `mcp` row',
      'floor',
      '',
      '— (what any Node server reaches here)',
    ),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await bigOutput({ rounds: Number(process.env.TOOLGATE_BIG_ROUNDS ?? 3) });
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}
