import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresJournal } from '../../src/journal/postgres/postgres-journal.js';
import { REPO, trustProject } from '../cli/run-cli.js';
import { type PgServer, startPostgres } from '../helpers/postgres.js';
import { type AsyncCliRun, runCliAsync } from '../helpers/run-cli-async.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * The web console (issue #17 §4) in a real browser: Debian's Chromium driven by playwright-core,
 * on a PostgreSQL journal (a throwaway server). A process waits with --approve remote; a person
 * approves in the console; the worker finishes. With TOOLGATE_SCREENSHOTS=1 the main pages are
 * saved under docs/screenshots/.
 */
const CHROMIUM = '/usr/bin/chromium';
const SHOTS = process.env.TOOLGATE_SCREENSHOTS === '1' ? path.join(REPO, 'docs', 'screenshots') : undefined;
const root = makeTempDir('toolgate-console-');
let console_: ChildProcess | undefined;
let url = '';
let token = '';
/** A browser that signed in once (the token, then its cookie). */
let signedIn: BrowserContext | undefined;
let browser: Browser | undefined;
let pg: PgServer | undefined;
let journal = '';
/** Every command here works on the one PostgreSQL journal. */
const on = () => ['--root', root, '--journal', journal];

beforeAll(async () => {
  expect(existsSync(CHROMIUM)).toBe(true); // .ci/run installs Debian's chromium
  pg = startPostgres();
  journal = pg.createDatabase();
  console_ = spawn(
    process.execPath,
    [path.join(REPO, 'bin', 'toolgate.js'), 'serve', ...on(), '--http', '127.0.0.1:0'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // It prints where to sign in, with the token made for this run.
  [url, token] = await new Promise<[string, string]>((resolve, reject) => {
    let out = '';
    console_?.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /open (http:\/\/127\.0\.0\.1:\d+)\/login\?token=([0-9a-f]+)/.exec(out);
      if (m) resolve([m[1] as string, m[2] as string]);
    });
    console_?.once('exit', (code) => reject(new Error(`toolgate serve exited (${code})`)));
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  signedIn = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const login = await signedIn.newPage();
  await login.goto(`${url}/login?token=${token}`);
  await login.close();
}, 60_000);
afterAll(async () => {
  if (browser) await closeSoon(browser);
  console_?.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  pg?.stop();
});

const write = (id: string, file: string, content: string) =>
  JSON.stringify([{ id, name: 'write_file', arguments: { path: file, content } }]);

/**
 * Until a call of `run` waits for an answer (read from the journal here: spawning a CLI per look is
 * slow under load). If `run` ends first, it never asked: fail at once with what it printed.
 */
async function untilWaiting(run: Promise<AsyncCliRun>): Promise<void> {
  let ended: AsyncCliRun | undefined;
  void run.then((r) => {
    ended = r;
  });
  const reader = PostgresJournal.open(journal);
  try {
    for (let i = 0; i < 1200 && reader.pendingApprovals().length === 0; i++) {
      if (ended) throw new Error(`the waiting process ended before asking: ${JSON.stringify(ended)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    reader.close();
  }
}

/**
 * Closes a page (or the browser) without waiting more than a few seconds: on a loaded machine
 * Chromium at times never answers a close of a page holding an open event stream, and the test,
 * whose checks had all passed, then timed out. Whatever is left goes with the browser at the end.
 */
async function closeSoon(target: { close(): Promise<void> }): Promise<void> {
  await Promise.race([target.close().catch(() => {}), new Promise((r) => setTimeout(r, 5_000).unref())]);
}

// A loaded machine (the whole suite at once) makes a browser slow: room for that.
describe('toolgate serve in Chromium (issue #17 §4)', { timeout: 90_000 }, () => {
  it('a pending write shown with its diff is approved in the browser; the waiting process finishes it; batches and calls are browsable', async () => {
    const run = runCliAsync(['exec', '--approve', 'remote', ...on()], {
      input: write('w1', 'hello.txt', 'hello from the browser\nsecond line\n'),
    });
    await untilWaiting(run);
    const page = await (signedIn as BrowserContext).newPage();
    await page.goto(`${url}/`);
    const card = page.locator('section.approval');
    await expect(card.locator('h2').textContent()).resolves.toMatch(/Create hello\.txt/);
    await expect(card.locator('pre .add').first().textContent()).resolves.toBe('+hello from the browser');
    await expect(page.locator('#mode').textContent()).resolves.toMatch(/mode: NORMAL/);
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, 'console-approvals.png'), fullPage: true });
    }
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.waitForSelector('#none');
    const done = await run;
    expect(JSON.parse(done.stdout)[0]).toMatchObject({ ok: true });
    expect(readFileSync(path.join(root, 'hello.txt'), 'utf8')).toBe('hello from the browser\nsecond line\n');

    await page.goto(`${url}/batches`);
    await page.locator('td a').first().click();
    await page.waitForSelector('table');
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toMatch(/write_file/);
    expect(text).toMatch(/complete/);
    expect(text).toMatch(/created: hello\.txt/);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'console-batch.png'), fullPage: true });
    await closeSoon(page);
  });

  it('live: a new question appears without a reload (server-sent events); a denial with its reason reaches the model', async () => {
    const page = await (signedIn as BrowserContext).newPage();
    await page.goto(`${url}/`);
    await page.waitForSelector('#none');
    const run = runCliAsync(['exec', '--approve', 'remote', ...on()], {
      input: write('w2', 'never.txt', 'no\n'),
    });
    await untilWaiting(run);
    await page.waitForSelector('section.approval', { timeout: 20_000 }); // came by itself
    await page.locator('input[name=reason]').fill('not in this repository');
    await page.getByRole('button', { name: 'Deny' }).click();
    const [result] = JSON.parse((await run).stdout);
    expect(result.error.type).toBe('Denied');
    expect(result.content).toMatch(/denied by console@.*: not in this repository/);
    expect(existsSync(path.join(root, 'never.txt'))).toBe(false);
    await closeSoon(page);
  });

  it('a compound command shows the sub-commands the policy judged', async () => {
    // run_command is denylisted until the config says otherwise; then a compound line asks.
    writeFileSync(path.join(root, 'toolgate.toml'), '[tools.approval]\ndenylist = []\n');
    trustProject(root); // a project's own config applies in full once trusted (issue #29 §6)
    const run = runCliAsync(['exec', '--approve', 'remote', ...on()], {
      input: JSON.stringify([
        { id: 'r1', name: 'run_command', arguments: { command: 'mkdir -p out && touch out/x' } },
      ]),
    });
    await untilWaiting(run);
    const page = await (signedIn as BrowserContext).newPage();
    await page.goto(`${url}/`);
    const text = (await page.locator('section.approval').textContent()) ?? '';
    expect(text).toMatch(/Sub-commands, each judged: mkdir -p out · touch out\/x/);
    await page.locator('input[name=reason]').fill('not now');
    await page.getByRole('button', { name: 'Deny' }).click();
    expect(JSON.parse((await run).stdout)[0].error.type).toBe('Denied');
    await closeSoon(page);
  });

  it('refuses what another site or a rebinding name could send: a foreign Host, a foreign Origin, a form without its CSRF token', async () => {
    const port = new URL(url).port;
    const raw = (headers: Record<string, string>, method = 'GET', body?: string) =>
      new Promise<number>((resolve, reject) => {
        import('node:http').then(({ request }) => {
          const req = request(
            { host: '127.0.0.1', port, path: '/approvals/approve', method, headers },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end(body);
        }, reject);
      });
    expect(await raw({ host: `evil.example:${port}` })).toBe(403);
    // Even on loopback, nothing without the token (another user of this machine reaches 127.0.0.1 too).
    expect(await raw({ host: `127.0.0.1:${port}` })).toBe(401);
    const form = {
      host: `127.0.0.1:${port}`,
      'content-type': 'application/x-www-form-urlencoded',
      cookie: `toolgate_console=${token}`,
    };
    expect(await raw({ ...form, origin: 'http://evil.example' }, 'POST', 'csrf=x')).toBe(403);
    expect(
      await raw({ ...form, origin: `http://127.0.0.1:${port}` }, 'POST', 'batch=b&index=0&preview=p'),
    ).toBe(403);
  });
});
