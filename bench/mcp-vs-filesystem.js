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

/**
 * Rounds of fresh servers: the fresh-server rows are medians over every round's calls, so one
 * round's luck (a 2-core machine's scheduling) weighs less; each round starts all four anew.
 */
const ROUNDS = 5;

export async function mcpVsFilesystem() {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcp-bench-')));
  writeFileSync(path.join(root, 'small.txt'), 'hello world\n'.repeat(20));
  // A folder of its own per round: the reference's writes slow down as a folder fills.
  for (let round = 0; round < ROUNDS; round++) mkdirSync(path.join(root, `w${round}`));
  // Writing is allowed without asking (the bench has nobody to ask), as a user's config would.
  writeFileSync(path.join(root, 'toolgate.toml'), '[tools.approval]\nallowlist = ["write_file"]\n');
  for (let d = 0; d < 50; d++) {
    mkdirSync(path.join(root, 'tree', `d${d}`), { recursive: true });
    for (let f = 0; f < 100; f++)
      writeFileSync(path.join(root, 'tree', `d${d}`, f % 10 === 0 ? `target-${f}.md` : `file-${f}.txt`), 'x');
  }
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
  const freshTimes = [[], [], [], []];
  const warmTimes = [[], [], [], []];
  const writeTimes = [[], [], []];
  let ours;
  let theirs;
  for (let round = 0; round < ROUNDS; round++) {
    ours = await connect(
      process.execPath,
      [
        'bin/toolgate.js',
        'mcp',
        '--no-journal',
        '--config',
        path.join(root, 'toolgate.toml'),
        '--root',
        root,
      ],
      process.cwd(),
    );
    // The default set-up journals every call (README): measured too, on its own journal file.
    const journaled = await connect(
      process.execPath,
      [
        'bin/toolgate.js',
        'mcp',
        '--config',
        path.join(root, 'toolgate.toml'),
        '--journal',
        path.join(root, '..', `${path.basename(root)}-journal-${round}.db`),
        '--root',
        root,
      ],
      process.cwd(),
    );
    theirs = await connect(
      process.execPath,
      ['node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', root],
      process.cwd(),
    );
    const bare = await connect(
      process.execPath,
      ['bench/bare-mcp-server.js', path.join(root, 'small.txt')],
      process.cwd(),
    );
    // The read round trips are interleaved (one call to each server in turn), so drift in the
    // machine's speed during the run falls on all three alike. Twice: a fresh server (20 calls in,
    // its code still unoptimized by V8, as in a short session) and a warmed one (3,000 calls in:
    // the steady state of a long-lived server).
    const reads = [
      [ours, 'read_file', { path: 'small.txt' }],
      [theirs, 'read_text_file', { path: path.join(root, 'small.txt') }],
      [bare, 'read', {}],
      [journaled, 'read_file', { path: 'small.txt' }],
    ];
    const interleaved = async (n, record) => {
      const times = reads.map(() => []);
      for (let i = 0; i < n; i++) {
        for (const [k, [c, name, args]] of reads.entries()) {
          const t = performance.now();
          const r = await c.callTool({ name, arguments: args });
          times[k].push(performance.now() - t);
          if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
        }
      }
      return record ? times : undefined;
    };
    await interleaved(20, false);
    for (const [k, t] of (await interleaved(200, true)).entries()) freshTimes[k].push(...t);
    await interleaved(3000, false);
    for (const [k, t] of (await interleaved(200, true)).entries()) warmTimes[k].push(...t);
    // Writes of new small files, interleaved the same way: ours with the journal (one fsync of the
    // journal before the write, and the file's own fsyncs: never torn) and without, theirs (no fsync).
    const line = 'a line of text to write\n'.repeat(10);
    const writes = [
      [journaled, (i) => ({ path: `w${round}/j${i}.txt`, content: line }), 'write_file'],
      [ours, (i) => ({ path: `w${round}/o${i}.txt`, content: line }), 'write_file'],
      [theirs, (i) => ({ path: path.join(root, `w${round}`, `t${i}.txt`), content: line }), 'write_file'],
    ];
    for (let i = 0; i < 220; i++) {
      for (const [k, [c, args, name]] of writes.entries()) {
        const t = performance.now();
        const r = await c.callTool({ name, arguments: args(i) });
        if (i >= 20) writeTimes[k].push(performance.now() - t);
        if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
      }
    }
    await bare.close();
    await journaled.close();
    if (round < ROUNDS - 1) {
      await ours.close();
      await theirs.close();
    }
  }
  const [readOurs, readTheirs, readBare, readJournaled] = freshTimes.map(median);
  const [warmOurs, warmTheirs, warmBare, warmJournaled] = warmTimes.map(median);
  const [writeJournaled, writeOurs, writeTheirs] = writeTimes.map(median);
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
      `MCP: read_file round trip, median of ${ROUNDS} × 200 (small file), --no-journal, fresh server (20 calls in; ${ROUNDS} fresh server sets)`,
      `${readOurs.toFixed(2)} ms`,
      `server-filesystem read_text_file ${readTheirs.toFixed(2)} ms`,
      `${(readOurs / readTheirs).toFixed(2)}×`,
      '≤ 0.8×',
    ],
    [
      `MCP: read_file round trip, median of ${ROUNDS} × 200 (small file), --no-journal, warmed server (3,000 calls in)`,
      `${warmOurs.toFixed(2)} ms`,
      `server-filesystem read_text_file ${warmTheirs.toFixed(2)} ms`,
      `${(warmOurs / warmTheirs).toFixed(2)}×`,
      '≤ 0.8×',
    ],
    [
      `MCP: read_file round trip, median of ${ROUNDS} × 200, journal on (the default), fresh / warmed`,
      `${readJournaled.toFixed(2)} / ${warmJournaled.toFixed(2)} ms`,
      `server-filesystem read_text_file ${readTheirs.toFixed(2)} / ${warmTheirs.toFixed(2)} ms`,
      `${(readJournaled / readTheirs).toFixed(2)}× / ${(warmJournaled / warmTheirs).toFixed(2)}×`,
      '≤ 0.8× (issue #14)',
    ],
    [
      `MCP: write_file of a new small file, median of ${ROUNDS} × 200 interleaved, journal on (the default) / --no-journal`,
      `${writeJournaled.toFixed(2)} / ${writeOurs.toFixed(2)} ms`,
      `server-filesystem write_file (no fsync) ${writeTheirs.toFixed(2)} ms`,
      `${(writeJournaled / writeTheirs).toFixed(2)}× / ${(writeOurs / writeTheirs).toFixed(2)}×`,
      '≤ 1.2× journal on (issue #14)',
    ],
    [
      'MCP: transport floor (bare SDK server, constant answer), fresh / warmed',
      `${readBare.toFixed(2)} / ${warmBare.toFixed(2)} ms`,
      `server-filesystem read_text_file ${readTheirs.toFixed(2)} / ${warmTheirs.toFixed(2)} ms`,
      `${(readBare / readTheirs).toFixed(2)}× / ${(warmBare / warmTheirs).toFixed(2)}×`,
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
