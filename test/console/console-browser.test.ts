import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { previewHash } from '../../src/core/preview-hash.js';
import type { PendingApproval } from '../../src/journal/journal.js';
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
/** The address `toolgate serve` printed to sign in once. */
let codeUrl = '';
/** A browser that signed in once (with the printed one-time code). */
let signedIn: BrowserContext | undefined;
/** The tab that signed in, kept to look at its address and history. */
let codeTab: Page | undefined;
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
  // It prints an address that signs in once, and the token made for this run.
  [url, codeUrl, token] = await new Promise<[string, string, string]>((resolve, reject) => {
    let out = '';
    console_?.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /open ((http:\/\/127\.0\.0\.1:\d+)\/login\?code=[0-9a-f]+) .*the token ([0-9a-f]+)\n/.exec(
        out,
      );
      if (m) resolve([m[2] as string, m[1] as string, m[3] as string]);
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
  codeTab = await signedIn.newPage();
  await codeTab.goto(codeUrl);
  await codeTab.waitForURL(`${url}/`);
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
async function untilWaiting(run: Promise<AsyncCliRun>, count = 1): Promise<void> {
  let ended: AsyncCliRun | undefined;
  void run.then((r) => {
    ended = r;
  });
  const reader = PostgresJournal.open(journal);
  try {
    for (let i = 0; i < 1200 && reader.pendingApprovals().length < count; i++) {
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
    // What "always" would cover, in the grants' words (issue #30 §5).
    await expect(card.locator('.always').textContent()).resolves.toMatch(
      /write_file to hello\.txt in this session/,
    );
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
    expect(result.content).toMatch(/denied by root via console@.*: not in this repository/);
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

  it('refuses what another site or a rebinding name could send: a foreign Host, a foreign Origin, no sign-in, the token as a cookie', async () => {
    const port = new URL(url).port;
    const json = { host: `127.0.0.1:${port}`, 'content-type': 'application/json' };
    expect((await raw('GET', '/', { host: `evil.example:${port}` })).status).toBe(403);
    // Even on loopback, nothing without a sign-in (another user of this machine reaches 127.0.0.1 too).
    expect((await raw('GET', '/api/approvals', { host: `127.0.0.1:${port}` })).status).toBe(401);
    expect((await raw('POST', '/api/answer', json, '{}')).status).toBe(401);
    // The token is no cookie: a browser never holds it.
    expect(
      (await raw('POST', '/api/answer', { ...json, cookie: `toolgate_console=${token}` }, '{}')).status,
    ).toBe(401);
    expect(
      (
        await raw(
          'POST',
          '/api/answer',
          { ...json, authorization: `Bearer ${token}`, origin: 'http://evil.example' },
          '{}',
        )
      ).status,
    ).toBe(403);
  });

  it("issue #30 §4: a card that goes away above does not put another call's Approve button under a resting pointer's click: the click lands while the moved button is inert and answers nothing", async () => {
    const runA = runCliAsync(['exec', '--approve', 'remote', ...on()], {
      input: write('a', 'a1.txt', 'x\n'),
    });
    await untilWaiting(runA, 1);
    const runB = runCliAsync(['exec', '--approve', 'remote', ...on()], {
      input: write('b', 'b1.txt', 'x\n'),
    });
    await untilWaiting(runB, 2);
    const { page } = await signIn('Pat'); // a context of its own: a clock is installed per context
    // The page's clock stands still from here on unless the test moves it: "within the inert
    // moment" is then a fact, not a race with a loaded machine.
    await page.clock.install({ time: new Date('2030-01-01T00:00:00Z') });
    await page.goto(`${url}/`);
    const cards = page.locator('section.approval');
    await cards.nth(1).waitFor();
    await page.clock.pauseAt(new Date('2030-01-01T00:10:00Z')); // first sight's inert moment over
    await page.waitForSelector('button[data-inert]', { state: 'detached' });
    const approve = (card: number) => cards.nth(card).getByRole('button', { name: 'Approve', exact: true });
    const boxA = (await approve(0).boundingBox()) as { x: number; y: number; width: number; height: number };
    // The pointer rests on the first call's Approve button.
    const at = { x: boxA.x + boxA.width / 2, y: boxA.y + boxA.height / 2 };
    await page.mouse.move(at.x, at.y);
    // The first call goes away (answered elsewhere, as when it expires): its card leaves.
    const [first] = pending();
    answerInJournal(first as PendingApproval, false);
    expect(JSON.parse((await runA).stdout)[0].error.type).toBe('Denied');
    await cards.nth(1).waitFor({ state: 'detached' });
    await page.locator('#notice', { hasText: 'No longer waiting' }).waitFor();
    // The other call's Approve button is now under the resting pointer.
    const boxB = (await approve(0).boundingBox()) as { x: number; y: number; width: number; height: number };
    expect(at.y).toBeGreaterThan(boxB.y);
    expect(at.y).toBeLessThan(boxB.y + boxB.height);
    await page.mouse.down();
    await page.mouse.up();
    await page.locator('#notice', { hasText: 'just moved' }).waitFor({ timeout: 10_000 });
    expect(pending().map((p) => p.request.callId)).toEqual(['b']);
    // Once the moment has passed, the same button answers.
    await page.clock.runFor(1_100);
    await approve(0).click();
    expect(JSON.parse((await runB).stdout)[0]).toMatchObject({ ok: true });
    await closeSoon(page.context());
  });

  it('issue #30 §7: a page served on another port of 127.0.0.1 gets no usable credential and cannot approve', async () => {
    const run = runCliAsync(['exec', '--approve', 'remote', ...on()], {
      input: write('e1', 'evil1.txt', 'x\n'),
    });
    await untilWaiting(run);
    const [waiting] = pending();
    const answer = JSON.stringify({
      batchId: waiting?.batchId,
      index: waiting?.index,
      callId: waiting?.request.callId,
      preview: previewHash((waiting as PendingApproval).request),
      approved: true,
    });
    // Another user's server on 127.0.0.1: it keeps the cookies the browser sends it (cookies are
    // scoped by host, not port), and its page tries the console from the browser itself.
    const cookies: string[] = [];
    const evil = createServer((req, res) => {
      cookies.push(req.headers.cookie ?? '');
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><script>
        window.result = (async () => {
          const out = { cookie: document.cookie, key: localStorage.getItem('toolgate-console-key') };
          try { out.read = (await fetch('${url}/api/approvals', { credentials: 'include' })).status; } catch { out.read = 'blocked'; }
          try { out.answer = (await fetch('${url}/api/answer', { method: 'POST', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(answer)} })).status; } catch { out.answer = 'blocked'; }
          return out;
        })();
      </script>`);
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    try {
      const page = await (signedIn as BrowserContext).newPage();
      await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      const seen = await page.evaluate('window.result');
      expect(seen).toEqual({ cookie: '', key: null, read: 'blocked', answer: 'blocked' });
      await closeSoon(page);
      // The cookie did reach the other server; it is a session id, not the token, and alone it
      // neither reads the waiting calls nor answers them.
      const stolen = /toolgate_console=([^;]+)/.exec(cookies.join(';'))?.[1];
      expect(stolen).toBeDefined();
      expect(stolen).not.toBe(token);
      const port = new URL(url).port;
      const headers = { host: `127.0.0.1:${port}`, cookie: `toolgate_console=${stolen}` };
      expect((await raw('GET', '/api/approvals', headers)).status).toBe(401);
      const post = await raw(
        'POST',
        '/api/answer',
        { ...headers, 'content-type': 'application/json' },
        answer,
      );
      expect(post.status).toBe(401);
      const home = await raw('GET', '/', headers);
      expect(home.body).not.toMatch(/evil1\.txt/);
      expect(pending().map((p) => p.request.callId)).toEqual(['e1']);
    } finally {
      evil.close();
      const [left] = pending();
      if (left) answerInJournal(left, false);
    }
    expect(JSON.parse((await run).stdout)[0].error.type).toBe('Denied');
  });

  it('issue #30 §7: signing in leaves neither the token nor the code in the address or the history; the code works once', async () => {
    // The tab that signed in with the printed address: replaced by the console's own.
    const tab = codeTab as Page;
    expect(tab.url()).toBe(`${url}/`);
    const cdp = await (signedIn as BrowserContext).newCDPSession(tab);
    const { entries } = (await cdp.send('Page.getNavigationHistory')) as { entries: { url: string }[] };
    await cdp.detach();
    expect(entries.map((e) => e.url)).toContain(`${url}/`);
    expect(entries.filter((e) => /code=|token=/.test(e.url))).toEqual([]);
    const again = await (signedIn as BrowserContext).newPage();
    const used = await again.goto(codeUrl);
    expect(used?.status()).toBe(401);
    await closeSoon(again);
    // With the token: a POST form, so no address ever carries it.
    const { page } = await signIn('Alice Example');
    expect(page.url()).toBe(`${url}/`);
    expect(page.url()).not.toContain(token);
    const cookie = (await page.context().cookies()).find((c) => c.name === 'toolgate_console');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookie?.value).not.toBe(token);
    expect(await page.evaluate('document.cookie')).toBe('');
    await closeSoon(page.context());
  });

  it("issue #30 §4: an answer carries the approver's name (recorded and shown); an answer for a stale preview or another call is refused", async () => {
    const run = runCliAsync(['exec', '--approve', 'remote', ...on()], {
      input: write('n1', 'named.txt', 'x\n'),
    });
    await untilWaiting(run);
    const { page } = await signIn('Alice Example');
    await expect(page.locator('#who').textContent()).resolves.toMatch(/signed in as Alice Example/);
    const card = page.locator('section.approval');
    await card.waitFor();
    // The card's own answer, changed in one field, sent as the page's script sends it (a string: this
    // file is typed without the DOM).
    const post = (change: Record<string, unknown>) =>
      page.evaluate(`(async (change) => {
        const card = document.querySelector('section.approval');
        const body = {
          batchId: card.dataset.batch,
          index: Number(card.dataset.index),
          callId: card.dataset.call,
          preview: card.dataset.preview,
          approved: true,
          ...change,
        };
        const res = await fetch('/api/answer', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-toolgate-key': localStorage.getItem('toolgate-console-key') ?? '' },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: await res.json() };
      })(${JSON.stringify(change)})`) as Promise<{ status: number; body: { error?: string } }>;
    const stale = await post({ preview: 'f'.repeat(64) });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatch(/^look at the call again/);
    expect((await post({ callId: 'another' })).status).toBe(409);
    // A script with the token must say who answers, too.
    const port = new URL(url).port;
    const waitingNow = pending()[0] as PendingApproval;
    const scripted = await raw(
      'POST',
      '/api/answer',
      { host: `127.0.0.1:${port}`, 'content-type': 'application/json', authorization: `Bearer ${token}` },
      JSON.stringify({
        batchId: waitingNow.batchId,
        index: waitingNow.index,
        callId: waitingNow.request.callId,
        preview: previewHash(waitingNow.request),
        approved: true,
      }),
    );
    expect(scripted.status).toBe(400);
    expect(scripted.body).toMatch(/give your name/);
    expect(pending().map((p) => p.request.callId)).toEqual(['n1']);
    const batchId = pending()[0]?.batchId as string;
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    expect(JSON.parse((await run).stdout)[0]).toMatchObject({ ok: true });
    await page.locator('#notice', { hasText: 'as Alice Example via console@' }).waitFor();
    const reader = PostgresJournal.open(journal);
    try {
      expect(reader.approvalAnswers(batchId)).toEqual([
        expect.objectContaining({ approved: true, by: expect.stringMatching(/^Alice Example via console@/) }),
      ]);
    } finally {
      reader.close();
    }
    await page.goto(`${url}/batches/${batchId}`);
    await expect(page.locator('.answered-by').textContent()).resolves.toMatch(
      /^by Alice Example via console@/,
    );
    // issue #31 §3: which file, always; the exact arguments one click away.
    await expect(page.locator('.call-summary').textContent()).resolves.toBe('write_file named.txt (1 line)');
    const args = page.locator('details.call-arguments pre');
    expect(await args.isVisible()).toBe(false);
    await page.locator('details.call-arguments summary').click();
    await args.waitFor({ state: 'visible' });
    expect(JSON.parse((await args.textContent()) ?? '')).toEqual({ path: 'named.txt', content: 'x\n' });
    await closeSoon(page.context());
  });

  it('issue #30 §5: the preview is shown as text: markup is not run, bidi and invisible characters are shown as escapes', async () => {
    const content = '<img src=x onerror="document.title=\'pwned\'">\n\u202egnp.exe\u200b\n';
    const run = runCliAsync(['exec', '--approve', 'remote', ...on()], {
      input: write('x1', 'shown.txt', content),
    });
    await untilWaiting(run);
    const page = await (signedIn as BrowserContext).newPage();
    await page.goto(`${url}/`);
    const card = page.locator('section.approval');
    await card.waitFor();
    expect(await card.locator('img').count()).toBe(0);
    const text = (await card.locator('pre').textContent()) ?? '';
    expect(text).toContain('+<img src=x onerror="document.title=\'pwned\'">');
    expect(text).toContain('\\u202egnp.exe\\u200b');
    expect(text).not.toMatch(/[\u202e\u200b]/);
    expect(await page.title()).not.toBe('pwned');
    await card.locator('input[name=reason]').fill('no');
    await card.getByRole('button', { name: 'Deny' }).click();
    expect(JSON.parse((await run).stdout)[0].error.type).toBe('Denied');
    await closeSoon(page);
  });

  it('issue #30 §6, §7: a connection from another OS user of this machine is refused, whatever it presents', () => {
    const port = new URL(url).port;
    const curl = (as: string[]) =>
      spawnSync(
        as[0] as string,
        [
          ...as.slice(1),
          'curl',
          '-s',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code}',
          '-H',
          `Authorization: Bearer ${token}`,
          `http://127.0.0.1:${port}/api/approvals`,
        ],
        { encoding: 'utf8' },
      ).stdout;
    expect(curl(['runuser', '-u', 'nobody', '--'])).toBe('403');
    expect(curl(['env'])).toBe('200'); // the owner, with the same request
  });
});

/** The calls waiting now, read from the journal. */
function pending(): PendingApproval[] {
  const reader = PostgresJournal.open(journal);
  try {
    return reader.pendingApprovals();
  } finally {
    reader.close();
  }
}

/** Answers a waiting call in the journal, as another console or `toolgate approvals` would. */
function answerInJournal(p: PendingApproval, approved: boolean): void {
  const writer = PostgresJournal.open(journal);
  try {
    writer.answerApproval({
      batchId: p.batchId,
      index: p.index,
      approved,
      ...(approved ? {} : { reason: 'answered elsewhere' }),
      preview: previewHash(p.request),
      by: 'test',
    });
  } finally {
    writer.close();
  }
}

/** A new browser signed in with the token (the POST form) under `name`, on the approvals page. */
async function signIn(name: string): Promise<{ page: Page }> {
  const context = await (browser as Browser).newContext({ viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${url}/login`);
  await page.locator('input[name=token]').fill(token);
  await page.locator('input[name=name]').fill(name);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${url}/`);
  return { page };
}

/** One raw HTTP request to the console (no browser): its status and body. */
function raw(
  method: string,
  urlPath: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: new URL(url).port, path: urlPath, method, headers },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => {
          text += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
