import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = path.resolve(import.meta.dirname, '../..');
const temp = mkdtempSync(path.join(os.tmpdir(), 'toolgate-lazy-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** Packages only some features need: importing the library and reading a file must load none. */
const HEAVY = [
  'ink',
  'react',
  'hono',
  '@hono/node-server',
  'pg',
  'linkedom',
  '@mozilla/readability',
  '@anthropic-ai/sandbox-runtime',
  'better-sqlite3',
  'playwright-core',
  '@modelcontextprotocol/sdk',
  'commander',
];

/** The README's library example. */
const EXAMPLE = `
  const { createToolgate, approveAll } = await import(process.env.ENTRY);
  const gate = createToolgate({ roots: [process.cwd()], approver: approveAll });
  const [result] = await gate.execute([{ id: '1', name: 'read_file', arguments: { path: 'README.md' } }]);
  if (!result.ok) throw new Error(JSON.stringify(result));
`;

/**
 * A copy of the shipped library (dist/ without the bundle's maps) whose node_modules links every
 * package of this checkout except `leftOut`: an install where those packages really are absent,
 * found (or not) by Node's own resolution.
 */
function installWithout(leftOut: readonly string[]): string {
  const dir = mkdtempSync(path.join(temp, 'install-'));
  cpSync(path.join(REPO, 'dist'), path.join(dir, 'dist'), {
    recursive: true,
    filter: (f) => !f.endsWith('.map'),
  });
  cpSync(path.join(REPO, 'bin'), path.join(dir, 'bin'), { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'toolgate', type: 'module' }));
  mkdirSync(path.join(dir, 'node_modules'));
  const modules = path.join(REPO, 'node_modules');
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    const names = entry.startsWith('@')
      ? readdirSync(path.join(modules, entry)).map((n) => `${entry}/${n}`)
      : [entry];
    for (const name of names) {
      if (leftOut.includes(name)) continue;
      mkdirSync(path.dirname(path.join(dir, 'node_modules', name)), { recursive: true });
      symlinkSync(path.join(modules, name), path.join(dir, 'node_modules', name));
    }
  }
  return dir;
}

function node(args: string[], env: Record<string, string>, cwd = REPO) {
  return spawnSync(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

describe('issue #31 §3: heavy packages load only when their feature is used', () => {
  it('importing the library and running the README example loads none of them', () => {
    const record = path.join(temp, 'resolved.txt');
    // Every specifier resolved through import (module.register's hook) and every module required
    // through CommonJS (its cache, at exit), written where the test reads them.
    const hooks = path.join(temp, 'hooks.mjs');
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';
       export async function resolve(specifier, context, next) {
         const resolved = await next(specifier, context);
         appendFileSync(process.env.RECORD, resolved.url + '\\n');
         return resolved;
       }`,
    );
    const hook = path.join(temp, 'record.mjs');
    writeFileSync(
      hook,
      `import { appendFileSync } from 'node:fs';
       import { createRequire, register } from 'node:module';
       register(${JSON.stringify(`file://${hooks}`)});
       const cache = createRequire(import.meta.url)('node:module')._cache;
       process.on('exit', () => appendFileSync(process.env.RECORD, Object.keys(cache).join('\\n') + '\\n'));`,
    );
    const run = node(['--import', hook, '--input-type=module', '-e', EXAMPLE], {
      ENTRY: path.join(REPO, 'dist/index.js'),
      RECORD: record,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const loaded = new Set(
      execFileSync('cat', [record], { encoding: 'utf8' })
        .split('\n')
        .map((line) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(line)?.[1])
        .filter((name): name is string => name !== undefined),
    );
    expect(loaded.size).toBeGreaterThan(0); // the recording works: zod at least is there
    expect(HEAVY.filter((name) => loaded.has(name))).toEqual([]);
  });

  it('without better-sqlite3 the example works, and opening a journal says what to install', () => {
    const dir = installWithout(['better-sqlite3']);
    const example = node(['--input-type=module', '-e', EXAMPLE], { ENTRY: path.join(dir, 'dist/index.js') });
    expect(example.stderr).toBe('');
    expect(example.status).toBe(0);
    const journal = node(
      [
        '--input-type=module',
        '-e',
        `const { SqliteJournal } = await import(process.env.ENTRY);
         try { SqliteJournal.open(process.env.FILE); console.log('opened'); } catch (e) { console.log(e.message); }`,
      ],
      { ENTRY: path.join(dir, 'dist/index.js'), FILE: path.join(dir, 'journal.db') },
    );
    expect(journal.stdout).toContain(
      "toolgate's journal and memory (SQLite) needs better-sqlite3, which is not installed",
    );
    expect(journal.stdout).toContain('install it: npm i better-sqlite3@12.11.1');
    // The CLI fails closed with the same line: nothing runs without its journal.
    const cli = spawnSync(process.execPath, [path.join(dir, 'bin/toolgate.js'), 'exec'], {
      cwd: REPO,
      input: '[{"id":"1","name":"read_file","arguments":{"path":"README.md"}}]',
      encoding: 'utf8',
      env: { ...process.env, XDG_CACHE_HOME: path.join(dir, 'cache') },
      timeout: 120_000,
    });
    expect(cli.status).not.toBe(0);
    expect(cli.stderr).toContain('install it: npm i better-sqlite3@12.11.1');
  });

  it('without the sandbox runtime, sandbox = "os" says what to install', () => {
    const dir = installWithout(['@anthropic-ai/sandbox-runtime']);
    const run = node(
      [
        '--input-type=module',
        '-e',
        `const { OsSandbox } = await import(process.env.MODULE);
         try { console.log(await OsSandbox.missing()); } catch (e) { console.log(e.message); }`,
      ],
      { MODULE: path.join(dir, 'dist/tools/shell/os-sandbox.js') },
    );
    expect(run.stdout).toContain(
      'sandbox = "os" needs @anthropic-ai/sandbox-runtime, which is not installed',
    );
    expect(run.stdout).toContain('install it: npm i @anthropic-ai/sandbox-runtime@0.0.78');
  });

  it('the CLI runs without the packages only it uses (they are in its bundle)', () => {
    const dir = installWithout(
      HEAVY.filter((name) => name !== 'better-sqlite3' && name !== '@anthropic-ai/sandbox-runtime'),
    );
    const work = mkdtempSync(path.join(temp, 'work-'));
    writeFileSync(path.join(work, 'a.txt'), 'hello\n');
    const cli = (args: string[], input?: string) =>
      spawnSync(process.execPath, [path.join(dir, 'bin/toolgate.js'), ...args], {
        cwd: work,
        input,
        encoding: 'utf8',
        env: { ...process.env, XDG_CACHE_HOME: path.join(dir, 'cache') },
        timeout: 120_000,
      });
    const exec = cli(['exec'], '[{"id":"1","name":"read_file","arguments":{"path":"a.txt"}}]');
    expect(exec.stderr).toBe('');
    expect(JSON.parse(exec.stdout)[0]).toMatchObject({ ok: true, content: 'hello\n' });
    const tools = cli(['tools', '--help']);
    expect(tools.status).toBe(0);
  });
});
