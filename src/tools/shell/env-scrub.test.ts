import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holdsPassword } from '../../output/redact-url.js';
import { isCredential, scrubEnv, withSandboxEnv } from './env-scrub.js';

/** Every libpq variable that carries or points at a secret, and the ones that say where to log in. */
const LIBPQ = [
  'PGPASSWORD',
  'PGPASSFILE',
  'PGSERVICEFILE',
  'PGSERVICE',
  'PGSSLKEY',
  'PGSSLCERT',
  'PGSSLROOTCERT',
  'PGHOST',
  'PGHOSTADDR',
  'PGUSER',
  'PGDATABASE',
  'PGOPTIONS',
  'PGPORT',
];

describe('issue #30 §8: commands never receive toolgate’s own credentials or credential-shaped variables', () => {
  it('every PG* variable, DATABASE_URL, every TOOLGATE_* and every URL with a password are taken out; the rest stays', () => {
    const env: NodeJS.ProcessEnv = {
      ...Object.fromEntries(LIBPQ.map((n) => [n, 'x'])),
      DATABASE_URL: 'postgres://toolgate@db/x',
      TEST_DATABASE_URL: 'postgres://db/x',
      TOOLGATE_MCP_USER_TOKENS: 'alice:t1,bob:t2',
      TOOLGATE_CONSOLE_TOKEN: 't',
      TOOLGATE_PG_BIN: '/usr/lib/postgresql/16/bin',
      REDIS: 'redis://default:hunter2@cache:6379/0',
      UPSTREAM: 'see https://u:p@example.com/x for details',
      CONNINFO: 'host=db user=app password=hunter2',
      QUERY: 'postgres://db/x?sslmode=require&PassWord=hunter2',
      MYSQL_PWD: 'hunter2',
      DB_PASSWD: 'hunter2',
      KEEP: 'plain',
      PATH: '/usr/bin:/bin',
      HTTP_PROXY: 'http://proxy.internal:3128',
      DOCKER_HOST: 'ssh://deploy@build-host',
      PAGER: 'less',
    };
    expect(Object.keys(scrubEnv(env)).sort()).toEqual(['DOCKER_HOST', 'HTTP_PROXY', 'KEEP', 'PAGER', 'PATH']);
  });

  it('issue #30 §8 (hostile review): the names credentials go by that no *_KEY/*_TOKEN pattern catches, and Bearer values, are taken out; SSH_AUTH_SOCK and friends stay', () => {
    const env: NodeJS.ProcessEnv = {
      TOKEN: 'x',
      SECRET: 'x',
      MY_APIKEY: 'x',
      API_KEYS: 'x',
      ACCESS_KEY_ID: 'x',
      npm_config__authToken: 'x',
      NPM_CONFIG__AUTH: 'x',
      CI_JOB_JWT: 'x',
      SESSION_COOKIE: 'x',
      PASSPHRASE: 'x',
      AUTH_HEADER: 'x',
      DOCKER_AUTH_CONFIG: '{}',
      GOOGLE_APPLICATION_CREDENTIALS: '/k.json',
      UPSTREAM_AUTHORIZATION: 'Bearer abcdefghijkl',
      SSH_AUTH_SOCK: '/run/ssh.sock',
      KEYBOARD: 'us',
      AUTHOR: 'someone',
      HOME: '/root',
    };
    expect(Object.keys(scrubEnv(env)).sort()).toEqual(['AUTHOR', 'HOME', 'KEYBOARD', 'SSH_AUTH_SOCK']);
  });

  it('the config’s denylist only adds: no entry of it (a negation included) brings a credential back', () => {
    const env = { PGPASSWORD: 'x', TOOLGATE_MCP_USER_TOKENS: 'y', KEEP: '1', MINE: '2' };
    expect(scrubEnv(env, ['!PGPASSWORD', '!TOOLGATE_*'])).not.toHaveProperty('PGPASSWORD');
    expect(scrubEnv(env, ['!PGPASSWORD', '!TOOLGATE_*'])).not.toHaveProperty('TOOLGATE_MCP_USER_TOKENS');
    expect(scrubEnv(env, ['MINE'])).toEqual({ KEEP: '1' });
  });

  it('under the OS sandbox, what the wrapper hands back cannot return a credential either', () => {
    const parent = { PGPASSWORD: 'x', DATABASE_URL: 'postgres://a:b@c/d', KEEP: '1' };
    const wrapper = { ...parent, PGPASSWORD: 'changed', HTTP_PROXY: 'http://localhost:3128' };
    expect(withSandboxEnv(scrubEnv(parent), wrapper, parent)).toEqual({
      KEEP: '1',
      HTTP_PROXY: 'http://localhost:3128',
    });
  });

  it('property: for any environment, the scrubbed one holds no TOOLGATE_*, no PG* and no value with a password', () => {
    const name = fc.oneof(
      fc.constantFrom(...LIBPQ, 'DATABASE_URL', 'TOOLGATE_X', 'toolgate_lower', 'pgpassword', 'HOME', 'PATH'),
      fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/),
      fc.stringMatching(/^(?:TOOLGATE_|PG)[A-Za-z0-9_]{0,8}$/),
    );
    const url = fc
      .tuple(
        fc.constantFrom('postgres', 'postgresql', 'https', 'redis', 'mysql', 'amqp'),
        fc.stringMatching(/^[a-z0-9]{0,6}$/),
        fc.stringMatching(/^[a-zA-Z0-9%!$]{0,8}$/),
        fc.constantFrom('', '?sslmode=require', '?password=s', '?SSLPassword=s', '?pass%77ord=s'),
      )
      .map(([scheme, user, pass, query]) => `${scheme}://${user}:${pass}@host/db${query}`);
    const value = fc.oneof(
      fc.string(),
      url,
      url.map((u) => `text before ${u} and after`),
    );
    fc.assert(
      fc.property(fc.dictionary(name, value), (env) => {
        for (const [n, v] of Object.entries(scrubEnv(env))) {
          expect(n.toUpperCase().startsWith('TOOLGATE_')).toBe(false);
          expect(n.toUpperCase().startsWith('PG')).toBe(false);
          expect(n.toUpperCase()).not.toContain('DATABASE_URL');
          expect(holdsPassword(v ?? '')).toBe(false);
          expect(v).not.toMatch(/:\/\/[^/?#\s]*:[^/?#\s]*@/);
          expect(v).not.toMatch(/password=|pass%77ord=/i);
          expect(isCredential(n, v ?? '')).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });
});
