// A throwaway PostgreSQL server, for the tests (test/helpers/postgres.ts) and the bench (issue #17):
// Debian's `postgresql` package (installed by .ci/run), a new cluster in a temp directory, listening
// only on a Unix socket there (no port to collide with), trusted logins for the `toolgate` user,
// stopped and removed by `stop()`. PostgreSQL refuses to run as root: as root the cluster belongs
// to the `postgres` system user.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function binDir() {
  const fromEnv = process.env.TOOLGATE_PG_BIN;
  if (fromEnv) return fromEnv;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(path.join(base, v, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0])
    throw new Error(
      'PostgreSQL is not installed: the PostgreSQL journal tests need its server (apt-get install postgresql; .ci/run installs it), or TOOLGATE_PG_BIN pointing at its bin directory',
    );
  return path.join(base, versions[0], 'bin');
}

/** The path of one of PostgreSQL's programs (psql, pgbench, createdb …). */
export function pgProgram(name) {
  return path.join(binDir(), name);
}

/** Runs a PostgreSQL program, as the `postgres` user when this process is root. */
function asOwner(program, args) {
  const bin = pgProgram(program);
  const [file, argv] =
    process.getuid?.() === 0
      ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', bin, ...args]]
      : [bin, args];
  return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

let databases = 0;

/** Starts a server; `settings` are extra `-c name=value` server settings. */
export function startPostgres(settings = {}) {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-pg-')));
  if (process.getuid?.() === 0) {
    const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    if (uid.status !== 0)
      throw new Error('running as root, and there is no `postgres` user to run the test server as');
    chownSync(dir, Number(uid.stdout), Number(gid.stdout));
  }
  const data = path.join(dir, 'data');
  asOwner('initdb', ['-D', data, '-U', 'toolgate', '--auth=trust', '-E', 'UTF8', '--no-sync', '--locale=C']);
  const extra = Object.entries(settings)
    .map(([k, v]) => ` -c ${k}=${v}`)
    .join('');
  const start = () =>
    asOwner('pg_ctl', [
      '-D',
      data,
      '-o',
      `-k ${dir} -c listen_addresses='' -c max_connections=200 -c shared_buffers=32MB${extra}`,
      '-l',
      path.join(dir, 'server.log'),
      '-w',
      'start',
    ]);
  start();
  const url = (database = 'postgres') =>
    `postgres://toolgate@localhost/${database}?host=${encodeURIComponent(dir)}`;
  return {
    dir,
    url,
    createDatabase() {
      const name = `j${process.pid}_${++databases}`;
      execFileSync(pgProgram('createdb'), ['-h', dir, '-U', 'toolgate', name], { stdio: 'ignore' });
      return url(name);
    },
    /** The server down (fast shutdown), its data kept: `start` brings it back. */
    halt() {
      asOwner('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    start,
    stop() {
      try {
        asOwner('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
