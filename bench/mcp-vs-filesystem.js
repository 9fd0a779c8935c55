// toolgate mcp against the official MCP filesystem server: same SDK client, same files, one run.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function connect(command, args, cwd) {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command, args, cwd, stderr: 'ignore' }));
  return client;
}

export async function mcpVsFilesystem() {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcp-bench-')));
  writeFileSync(path.join(root, 'small.txt'), 'hello world\n'.repeat(20));
  for (let d = 0; d < 50; d++) {
    mkdirSync(path.join(root, 'tree', `d${d}`), { recursive: true });
    for (let f = 0; f < 100; f++)
      writeFileSync(path.join(root, 'tree', `d${d}`, f % 10 === 0 ? `target-${f}.md` : `file-${f}.txt`), 'x');
  }
  const ours = await connect(
    process.execPath,
    ['bin/toolgate.js', 'mcp', '--no-journal', '--root', root],
    process.cwd(),
  );
  const theirs = await connect(
    process.execPath,
    ['node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', root],
    process.cwd(),
  );
  const bare = await connect(
    process.execPath,
    ['bench/bare-mcp-server.js', path.join(root, 'small.txt')],
    process.cwd(),
  );
  const roundTrips = async (client, name, args, n) => {
    for (let i = 0; i < 20; i++) await client.callTool({ name, arguments: args }); // warm-up
    const times = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      const r = await client.callTool({ name, arguments: args });
      times.push(performance.now() - t);
      if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
    }
    return median(times);
  };
  // The read round trips are interleaved (one call to each server in turn), so drift in the
  // machine's speed during the run falls on all three alike.
  const reads = [
    [ours, 'read_file', { path: 'small.txt' }, []],
    [theirs, 'read_text_file', { path: path.join(root, 'small.txt') }, []],
    [bare, 'read', {}, []],
  ];
  for (let i = 0; i < 20; i++)
    for (const [c, name, args] of reads) await c.callTool({ name, arguments: args });
  for (let i = 0; i < 200; i++) {
    for (const [c, name, args, times] of reads) {
      const t = performance.now();
      const r = await c.callTool({ name, arguments: args });
      times.push(performance.now() - t);
      if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
    }
  }
  const [readOurs, readTheirs, readBare] = reads.map((r) => median(r[3]));
  await bare.close();
  const searchOurs = await roundTrips(ours, 'glob', { pattern: '**/target-*.md', max_results: 10000 }, 20);
  const searchTheirs = await roundTrips(
    theirs,
    'search_files',
    { path: root, pattern: '**/target-*.md' },
    20,
  );
  const ourCount = (
    await ours.callTool({ name: 'glob', arguments: { pattern: '**/target-*.md', max_results: 10000 } })
  ).content[0].text.split('\n').length;
  const theirCount = (
    await theirs.callTool({ name: 'search_files', arguments: { path: root, pattern: '**/target-*.md' } })
  ).content[0].text
    .split('\n')
    .filter(Boolean).length;
  await ours.close();
  await theirs.close();
  return [
    [
      'MCP: read_file round trip, median of 200 (small file)',
      `${readOurs.toFixed(2)} ms`,
      `server-filesystem read_text_file ${readTheirs.toFixed(2)} ms`,
      `${(readOurs / readTheirs).toFixed(2)}×`,
      '≤ 0.8×',
    ],
    [
      'MCP: transport floor (bare SDK server, constant answer), median of 200',
      `${readBare.toFixed(2)} ms`,
      `server-filesystem read_text_file ${readTheirs.toFixed(2)} ms`,
      `${(readBare / readTheirs).toFixed(2)}×`,
      '—',
    ],
    [
      `MCP: name search over 5,000 files (${ourCount} found; theirs ${theirCount})`,
      `${searchOurs.toFixed(1)} ms`,
      `server-filesystem search_files ${searchTheirs.toFixed(1)} ms`,
      `${(searchOurs / searchTheirs).toFixed(2)}×`,
      '—',
    ],
  ];
}
