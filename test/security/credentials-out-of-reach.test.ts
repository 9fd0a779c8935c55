import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import type { ConfirmationRequest } from '../../src/core/confirmation.js';
import { PostgresJournal } from '../../src/journal/postgres/postgres-journal.js';
import { createToolgate } from '../../src/toolgate.js';
import { runCli, testConfigHome } from '../cli/run-cli.js';
import { type PgServer, pgProgram, startPostgres } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue #30 §8-§10, against the real CLI, real bash, bubblewrap and PostgreSQL: a command, however
 * approved, never gets toolgate's own credentials (not from its environment, not from
 * /proc/<toolgate>/environ), a password never sits in a journal URL, and an explicit path to
 * toolgate's own state is refused, not asked.
 */

const CANARY = `TGCANARY${randomBytes(6).toString('hex')}`;
const KEEP = `tg-keep-${randomBytes(4).toString('hex')}`;

/** What toolgate is started with: its own credentials, credential-shaped variables, and one plain variable. */
const STARTED_WITH: Record<string, string> = {
  PGPASSWORD: `${CANARY}-pgpassword`,
  PGPASSFILE: `/tmp/${CANARY}-pgpass`,
  PGSERVICEFILE: `/tmp/${CANARY}-service`,
  PGSSLKEY: `/tmp/${CANARY}-sslkey`,
  PGUSER: `${CANARY}user`,
  DATABASE_URL: `postgres://toolgate:${CANARY}-url@db.internal/journal`,
  TOOLGATE_MCP_USER_TOKENS: `alice:${CANARY}-alice,bob:${CANARY}-bob`,
  TOOLGATE_CONSOLE_TOKEN: `${CANARY}-console`,
  CACHE_URL: `redis://default:${CANARY}-redis@cache:6379/0`,
  LEGACY_CONNINFO: `host=db password=${CANARY}-conninfo`,
  TG_KEEP: KEEP,
};

/** Every way a command could look: its environment, its own /proc entry, toolgate's, and every process's. */
const LOOK = [
  'env',
  'echo ---printenv',
  'printenv',
  'echo ---self',
  "tr '\\0' '\\n' < /proc/self/environ",
  'echo ---parent',
  "tr '\\0' '\\n' < /proc/$PPID/environ",
  'echo ---grandparent',
  "tr '\\0' '\\n' < /proc/$(awk '/^PPid:/ {print $2}' /proc/$PPID/status)/environ",
  'echo ---every-process',
  'grep -las TGCANARY /proc/[0-9]*/environ',
  'echo ---end',
].join('; ');

type Result = { ok: boolean; content: string };

function execInWorkspace(config: string, calls: unknown[]): Result[] {
  const root = makeTempDir('toolgate-creds-');
  const dir = makeTempDir('toolgate-creds-config-');
  const file = path.join(dir, 'toolgate.toml');
  // run_command is on the default denylist; the person here approves everything that asks.
  writeFileSync(file, `[tools.approval]\ndenylist = []\n${config}`);
  const run = runCli(['exec', '--approve', 'all', '--config', file, '--root', root], {
    input: JSON.stringify(calls),
    env: STARTED_WITH,
  });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as Result[];
}

function expectNothingRevealed(content: string) {
  expect(content).toContain('---end');
  expect(content).not.toContain(CANARY);
  for (const name of Object.keys(STARTED_WITH).filter((n) => n !== 'TG_KEEP'))
    expect(content).not.toMatch(new RegExp(`^${name}=.`, 'm'));
}

describe('issue #30 §8: commands never see toolgate’s credentials (real bash, real /proc)', () => {
  it('host execution: env, printenv, /proc/self, /proc/$PPID (toolgate itself) and every /proc/*/environ show none', () => {
    const [r] = execInWorkspace('', [{ id: 'c1', name: 'run_command', arguments: { command: LOOK } }]);
    expect(r?.ok).toBe(true);
    const content = r?.content ?? '';
    expectNothingRevealed(content);
    // The reads worked: the plain variable is in the command's environment and in toolgate's own.
    expect(content.split('---self')[0]).toContain(`TG_KEEP=${KEEP}`);
    expect(content.split('---parent')[1]?.split('---grandparent')[0]).toContain(`TG_KEEP=${KEEP}`);
  });

  it('the session shell: the same reads, in the persistent bash', () => {
    const [r] = execInWorkspace('[tools.shell]\nbackend = "session"\n', [
      { id: 'c1', name: 'run_command', arguments: { command: LOOK } },
    ]);
    expect(r?.ok).toBe(true);
    expectNothingRevealed(r?.content ?? '');
    expect(r?.content.split('---parent')[1]?.split('---grandparent')[0]).toContain(`TG_KEEP=${KEEP}`);
  });

  it('a background command: the same reads, handed back through a FIFO', () => {
    const results = execInWorkspace('', [
      { id: 'c1', name: 'run_command', arguments: { command: 'mkfifo look.fifo' } },
      { id: 'c2', name: 'run_command', arguments: { command: `{ ${LOOK}; } > look.fifo`, background: true } },
      { id: 'c3', name: 'run_command', arguments: { command: 'cat look.fifo' } },
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
    expectNothingRevealed(results[2]?.content ?? '');
    expect(results[2]?.content.split('---parent')[1]?.split('---grandparent')[0]).toContain(
      `TG_KEEP=${KEEP}`,
    );
  });

  it('sandbox = "os" (bubblewrap), one-off, session and background: none either, and toolgate’s process is not in view', () => {
    const os = '[tools.run_command]\nsandbox = "os"\n';
    const [plain] = execInWorkspace(os, [{ id: 'c1', name: 'run_command', arguments: { command: LOOK } }]);
    expect(plain?.ok).toBe(true);
    expectNothingRevealed(plain?.content ?? '');
    expect(plain?.content.split('---self')[0]).toContain(`TG_KEEP=${KEEP}`);
    const [session] = execInWorkspace(`${os}[tools.shell]\nbackend = "session"\n`, [
      { id: 'c1', name: 'run_command', arguments: { command: LOOK } },
    ]);
    expect(session?.ok).toBe(true);
    expectNothingRevealed(session?.content ?? '');
    const background = execInWorkspace(os, [
      { id: 'c1', name: 'run_command', arguments: { command: 'mkfifo look.fifo' } },
      { id: 'c2', name: 'run_command', arguments: { command: `{ ${LOOK}; } > look.fifo`, background: true } },
      { id: 'c3', name: 'run_command', arguments: { command: 'cat look.fifo' } },
    ]);
    expect(background.map((r) => r.ok)).toEqual([true, true, true]);
    expectNothingRevealed(background[2]?.content ?? '');
  });
});

describe('issue #30 §9: a journal URL never holds a password, and is never printed with one', () => {
  it('config check refuses user:password@, ?password=, ?PassWord=, ?sslpassword= and an encoded one; the secret is not repeated', () => {
    const root = makeTempDir('toolgate-url-');
    for (const url of [
      `postgres://toolgate:${CANARY}@db/j`,
      `postgres://toolgate@db/j?password=${CANARY}`,
      `postgres://toolgate@db/j?PassWord=${CANARY}`,
      `postgres://toolgate@db/j?sslmode=require&sslpassword=${CANARY}`,
      `postgres://toolgate@db/j?pass%77ord=${CANARY}`,
    ]) {
      writeFileSync(path.join(root, 'toolgate.toml'), `[journal]\nurl = "${url}"\n`);
      const check = runCli(['config', 'check', '--config', path.join(root, 'toolgate.toml'), '--root', root]);
      expect(check.status, url).toBe(2);
      expect(check.stderr).toMatch(/a URL without a password: put the password in PGPASSWORD/);
      expect(check.stdout + check.stderr).not.toContain(CANARY);
    }
    writeFileSync(
      path.join(root, 'toolgate.toml'),
      '[journal]\nurl = "postgres://toolgate@db/j?sslmode=require"\n',
    );
    expect(
      runCli(['config', 'check', '--config', path.join(root, 'toolgate.toml'), '--root', root]).status,
    ).toBe(0);
  });

  it('--journal with a password anywhere is refused before any connection; the message shows it redacted', () => {
    const root = makeTempDir('toolgate-url-');
    for (const url of [`postgres://toolgate:${CANARY}@db/j`, `postgres://toolgate@db/j?Password=${CANARY}`]) {
      const run = runCli(['journal', 'list', '--root', root, '--journal', url]);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/^toolgate: give the journal a URL without a password/m);
      expect(run.stderr).toContain('***');
      expect(run.stderr).not.toContain(CANARY);
    }
  });
});

describe('issue #30 §8: an approved psql cannot log in to the journal with toolgate’s credentials (real PostgreSQL)', () => {
  let server: PgServer;
  const password = `${CANARY}-pg`;
  beforeAll(() => {
    server = startPostgres();
  }, 60_000);
  afterAll(() => server?.stop());

  it('toolgate journals there with PGPASSWORD; the command gets no PGPASSWORD, no DATABASE_URL, and its psql is refused', () => {
    const url = server.createDatabase();
    const database = new URL(url).pathname.slice(1);
    const psql = (env: Record<string, string>, sql: string) =>
      spawnSync(pgProgram('psql'), ['-h', server.dir, '-U', 'toolgate', '-d', database, '-w', '-Atc', sql], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', HOME: makeTempDir('toolgate-pg-home-'), ...env },
      });
    expect(psql({}, `ALTER ROLE toolgate PASSWORD '${password}'`).status).toBe(0);
    const hba = path.join(server.dir, 'data', 'pg_hba.conf');
    writeFileSync(hba, 'local all all scram-sha-256\n');
    expect(psql({}, 'SELECT pg_reload_conf()').stdout.trim()).toBe('t');
    // The reload is the server's, a moment later: wait until a login without the password is refused.
    for (let i = 0; i < 2000 && psql({}, 'SELECT 1').status === 0; i++) spawnSync('true');
    expect(psql({}, 'SELECT 1').status).not.toBe(0);
    expect(psql({ PGPASSWORD: password }, 'SELECT 1').stdout.trim()).toBe('1');

    const root = makeTempDir('toolgate-pg-creds-');
    writeFileSync(
      path.join(root, 'toolgate.toml'),
      `[tools.approval]\ndenylist = []\n[journal]\nurl = "${url}"\n`,
    );
    const attack = `env; echo ---; psql -h '${server.dir}' -U toolgate -d ${database} -w -Atc "SELECT 'LOGGED-IN-' || count(*) FROM batches"; psql "$DATABASE_URL" -w -Atc 'SELECT 1'; echo ---end`;
    const run = runCli(
      ['exec', '--approve', 'all', '--config', path.join(root, 'toolgate.toml'), '--root', root],
      {
        input: JSON.stringify([{ id: 'pg1', name: 'run_command', arguments: { command: attack } }]),
        env: {
          PGPASSWORD: password,
          DATABASE_URL: url.replace('toolgate@', `toolgate:${password}@`),
          PATH: `${path.dirname(pgProgram('psql'))}:${process.env.PATH}`,
        },
      },
    );
    expect(run.stderr).toBe('');
    const [r] = JSON.parse(run.stdout) as Result[];
    const content = r?.content ?? '';
    expect(content).toContain('---end');
    expect(content).not.toContain('LOGGED-IN-');
    expect(content).toMatch(/no password supplied|password authentication failed/);
    expect(content).not.toContain(password);
    expect(content).not.toMatch(/^(?:PGPASSWORD|DATABASE_URL)=/m);
    // Toolgate itself was on that journal all along, with the password from its environment.
    process.env.PGPASSWORD = password;
    const journal = PostgresJournal.open(url);
    try {
      expect(journal.recentBatches(5)).toHaveLength(1);
    } finally {
      journal.close();
      delete process.env.PGPASSWORD;
    }
  });
});

describe('issue #30 §10: an explicit path to toolgate’s own state is refused to commands, not asked', () => {
  let root: string;
  const asked: ConfirmationRequest[][] = [];
  const gate = () =>
    createToolgate({
      config: validateConfig({ tools: { approval: { denylist: [] } } }),
      roots: [root],
      approver: async (requests) => {
        asked.push([...requests]);
        return { kind: 'approve_all' };
      },
    });
  beforeAll(() => {
    root = makeTempDir('toolgate-own-');
    mkdirSync(path.join(root, '.toolgate'));
    writeFileSync(path.join(root, '.toolgate', 'memory.db'), `${CANARY} alice's notes\n`);
    writeFileSync(path.join(root, 'toolgate.toml'), '');
    mkdirSync(path.join(testConfigHome(), 'toolgate'), { recursive: true });
    writeFileSync(path.join(testConfigHome(), 'toolgate', 'trusted.json'), '{"trusted":[]}');
  });

  it.each([
    'sqlite3 .toolgate/memory.db "select * from entries"',
    'cat .toolgate/memory.db',
    'cat ./sub/../.toolgate/memory.db',
    'cat < .toolgate/memory.db',
    'cd .toolgate',
    'sqlite3 "file:.toolgate/memory.db?mode=ro" .dump',
    `sqlite3 :memory: "ATTACH '.toolgate/memory.db' AS m; SELECT * FROM m.entries"`,
    'cp toolgate.toml copy.toml',
    'bash -c "cat .toolgate/memory.db"',
    'env FOO=1 cat .toolgate/journal.db',
    ': > .toolgate/memory.db',
    'sqlite3 <<EOF\nATTACH DATABASE ".toolgate/memory.db" AS m;\nSELECT * FROM m.entries;\nEOF',
    'echo "SELECT * FROM entries" | sqlite3 ./.toolgate/memory.db',
  ])('%s', async (command) => {
    asked.length = 0;
    const g = gate();
    const [r] = await g.execute([{ id: 'o1', name: 'run_command', arguments: { command } }]);
    expect(r?.ok).toBe(false);
    expect(r?.content).toMatch(/use the memory tools .* names toolgate's own configuration or state/);
    expect(r?.content).not.toContain(CANARY);
    expect(asked).toEqual([]);
  });

  it('the trust store, the MCP token file and the memory file are refused by path outside the roots too', async () => {
    const memoryElsewhere = path.join(makeTempDir('toolgate-mem-'), 'notes.db');
    writeFileSync(memoryElsewhere, `${CANARY}\n`);
    const g = createToolgate({
      config: validateConfig({ tools: { approval: { denylist: [] }, memory: { file: memoryElsewhere } } }),
      roots: [root],
      approver: async (requests) => {
        asked.push([...requests]);
        return { kind: 'approve_all' };
      },
    });
    asked.length = 0;
    const stateHome = makeTempDir('toolgate-state-home-');
    mkdirSync(path.join(stateHome, 'toolgate'));
    writeFileSync(path.join(stateHome, 'toolgate', 'mcp-token'), `${CANARY}\n`);
    writeFileSync(path.join(stateHome, 'toolgate', 'seal-key'), `${CANARY}\n`);
    symlinkSync(path.join(stateHome, 'toolgate', 'mcp-token'), path.join(root, 'token-link'));
    symlinkSync(memoryElsewhere, path.join(root, 'notes-link'));
    for (const command of [
      `cat ${path.join(testConfigHome(), 'toolgate', 'trusted.json')}`,
      `cat ${path.join(stateHome, 'toolgate', 'mcp-token')}`,
      'cat ~/.local/state/toolgate/mcp-token',
      // The key that seals grants: whoever reads it can forge them.
      `cat ${path.join(stateHome, 'toolgate', 'seal-key')}`,
      'xxd ~/.local/state/toolgate/seal-key',
      // Through a link in the root, whose name says nothing: judged where it leads.
      'cat token-link',
      'sqlite3 notes-link .dump',
      'curl -H "Authorization: Bearer $(cat "$XDG_STATE_HOME/toolgate/mcp-token")" http://127.0.0.1:8765/mcp',
      `sqlite3 ${memoryElsewhere} .dump`,
    ]) {
      const [r] = await g.execute([{ id: 'o2', name: 'run_command', arguments: { command } }]);
      expect(r?.ok, command).toBe(false);
      expect(r?.content).toMatch(/names toolgate's own configuration or state/);
    }
    expect(asked).toEqual([]);
    expect(readFileSync(memoryElsewhere, 'utf8')).toContain(CANARY);
  });

  it('a hard link to the memory store (another name, the same inode) is refused to commands and to read_file (hostile review)', async () => {
    linkSync(path.join(root, '.toolgate', 'memory.db'), path.join(root, 'hl.db'));
    asked.length = 0;
    const g = gate();
    for (const command of ['cat hl.db', 'grep -c alice hl.db', 'sqlite3 hl.db .dump']) {
      const [r] = await g.execute([{ id: 'o4', name: 'run_command', arguments: { command } }]);
      expect(r?.ok, command).toBe(false);
      expect(r?.content).toMatch(/names toolgate's own configuration or state/);
      expect(r?.content).not.toContain(CANARY);
    }
    const [read] = await g.execute([{ id: 'o5', name: 'read_file', arguments: { path: 'hl.db' } }]);
    expect(read?.ok).toBe(false);
    expect(read?.content).toContain("toolgate's own configuration or state");
    expect(asked).toEqual([]);
  });

  it('a path that only looks alike still asks as before (.toolgate-notes, my.toolgate)', async () => {
    writeFileSync(path.join(root, '.toolgate-notes'), 'x\n');
    asked.length = 0;
    const g = gate();
    const [r] = await g.execute([
      {
        id: 'o3',
        name: 'run_command',
        arguments: { command: 'sqlite3 .toolgate-notes .dump; cat my.toolgate' },
      },
    ]);
    expect(r?.content).not.toMatch(/own configuration or state/);
    expect(asked).toHaveLength(1);
  });
});
