// The PostgreSQL journal's durable commits (issue #17 figures): toolgate's PostgresJournal appending
// messages (each one transaction: the session row, the session's lock, the message) against the
// same statements run by pgbench as prepared statements in C, on one local server with fsync on,
// interleaved in one run.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { PostgresJournal } from '../dist/journal/postgres/postgres-journal.js';
import { pgProgram, startPostgres } from './postgres-server.js';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function pgJournalBench({ rounds = 5, commits = 1000 } = {}) {
  const server = startPostgres();
  try {
    const url = server.createDatabase();
    const journal = PostgresJournal.open(url);
    const database = new URL(url).pathname.slice(1);
    const script = path.join(server.dir, 'append.sql');
    writeFileSync(
      script,
      [
        'BEGIN;',
        "INSERT INTO sessions (id, created_at) VALUES ('ref', 1) ON CONFLICT (id) DO NOTHING;",
        "SELECT pg_advisory_xact_lock(7461002, hashtext('ref'));",
        `INSERT INTO messages (session_id, seq, role, batch_id, call_id, content, created_at) SELECT 'ref', coalesce(max(seq), 0) + 1, 'user', NULL, NULL, '{"n":1}', 1 FROM messages WHERE session_id = 'ref';`,
        'END;',
        '',
      ].join('\n'),
    );
    const pgbench = () => {
      const out = execFileSync(
        pgProgram('pgbench'),
        [
          '-h',
          server.dir,
          '-U',
          'toolgate',
          '-n',
          '-M',
          'prepared',
          '-c',
          '1',
          '-t',
          String(commits),
          '-f',
          script,
          database,
        ],
        { encoding: 'utf8' },
      );
      const tps = /tps = ([\d.]+)/.exec(out)?.[1];
      if (!tps) throw new Error(`pgbench printed no tps:\n${out}`);
      return Number(tps);
    };
    const ours = () => {
      const t = performance.now();
      for (let i = 0; i < commits; i++) journal.appendMessage('bench', 'user', { n: i });
      return (commits * 1000) / (performance.now() - t);
    };
    ours();
    pgbench();
    const a = [];
    const b = [];
    for (let r = 0; r < rounds; r++) {
      a.push(ours());
      b.push(pgbench());
    }
    journal.close();
    const [mine, theirs] = [median(a), median(b)];
    return [
      [
        `PostgreSQL journal: durable commits, one session (session row, lock, message per transaction; local server, fsync on), median of ${rounds}×${commits}`,
        `${Math.round(mine)} /s`,
        `pgbench, same statements prepared: ${Math.round(theirs)} /s`,
        `${(mine / theirs).toFixed(2)}×`,
        '≥ 0.8× (issue #17)',
      ],
    ];
  } finally {
    server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await pgJournalBench()) console.log(`| ${row.join(' | ')} |`);
}
