import type dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import type { ToolResult } from '../../src/core/tool-result.js';
import { createToolgate } from '../../src/toolgate.js';
import { fetchUrl } from '../../src/tools/web/fetch-url.js';
import { fetchSettingsWith } from '../helpers/fetch-settings.js';
import { makeTempDir } from '../helpers/workspace.js';

/** A server on 127.0.0.1 that records every request it gets. */
async function server(handler: http.RequestListener) {
  const log: string[] = [];
  const s = http.createServer((req, res) => {
    log.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return {
    log,
    port: (s.address() as AddressInfo).port,
    close: () => {
      s.closeAllConnections();
      s.close();
    },
  };
}

const ARTICLE = `<!doctype html><html><head><title>Tide tables</title><script>alert(1)</script></head><body>
<nav><a href="/">Home</a> · <a href="/about">About</a></nav>
<article><h1>Reading a tide table</h1>
<p>A tide table lists the <strong>high and low water</strong> times for a port. Each row is one day;
the heights are in metres above chart datum. See the <a href="/glossary#datum">glossary</a> and the
<a href="https://example.org/charts">chart catalogue</a>.</p>
<p>Spring tides come two days after a full or new moon, when the range is largest; neap tides fall
between them, when high and low water differ least. Plan a crossing around slack water.</p>
<h2>Example</h2><pre><code>06:12  4.8 m
12:31  0.9 m</code></pre>
<p>Always check the local corrections for secondary ports before you rely on a time.</p>
</article>
<footer>© the harbour office</footer></body></html>`;

const TABLE = `<html><head><title>Ports</title></head><body><main><table id="ports">
<tr><th>Port</th><th>Range</th></tr><tr><td>Brest</td><td>7.0 m</td></tr><tr><td>Dover</td><td>6.0 m</td></tr>
</table><p class="note">Ranges at springs.</p></main></body></html>`;

describe('web_fetch (issue #15)', () => {
  let victim: Awaited<ReturnType<typeof server>>;
  let site: Awaited<ReturnType<typeof server>>;
  const root = makeTempDir('toolgate-web-');

  beforeAll(async () => {
    victim = await server((_req, res) => res.end('the secret on the private side'));
    site = await server((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/redirect') {
        res.writeHead(Number(url.searchParams.get('status') ?? 302), {
          location: url.searchParams.get('to') ?? '/',
        });
        return res.end();
      }
      if (url.pathname.startsWith('/chain/')) {
        const n = Number(url.pathname.slice(7));
        res.writeHead(302, { location: n > 0 ? `/chain/${n - 1}` : '/article' });
        return res.end();
      }
      if (url.pathname === '/article') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(ARTICLE);
      }
      if (url.pathname === '/table') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end(TABLE);
      }
      if (url.pathname === '/json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"port":"Brest","range":7}');
      }
      if (url.pathname === '/png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      }
      if (url.pathname === '/missing') {
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('no such page');
      }
      if (url.pathname === '/endless') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const line = Buffer.alloc(16 * 1024, 'z');
        const pump = () => {
          while (res.write(line)) {}
          res.once('drain', pump);
        };
        res.on('close', () => res.removeAllListeners('drain'));
        return pump();
      }
      if (url.pathname === '/slow') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.write('a first line, then nothing'); // never ends
      }
      res.end('ok');
    });
  });
  afterAll(() => {
    victim.close();
    site.close();
  });

  const siteUrl = (p: string) => `http://127.0.0.1:${site.port}${p}`;
  const gate = (web: Record<string, unknown> = {}) =>
    createToolgate({
      config: validateConfig({
        tools: {
          approval: { allowlist: ['web_fetch'] },
          web: { allow_private: [`127.0.0.1:${site.port}`], ...web },
        },
      }),
      roots: [root],
      approver: approveAll,
    });
  const fetch = async (
    url: string,
    more: Record<string, unknown> = {},
    web: Record<string, unknown> = {},
  ) => {
    const [r] = await gate(web).execute([{ id: '1', name: 'web_fetch', arguments: { url, ...more } }]);
    return r as ToolResult;
  };

  // The SSRF table: every address form below must be refused, directly and through each redirect
  // status from an allowed server; the private server's own log proves nothing reached it.
  const forbidden = () => [
    `http://127.0.0.1:${victim.port}/`,
    `http://localhost:${victim.port}/`,
    `http://localhost.:${victim.port}/`,
    `http://LOCALHOST:${victim.port}/`,
    `http://0x7f000001:${victim.port}/`,
    `http://2130706433:${victim.port}/`,
    `http://0177.0.0.1:${victim.port}/`,
    `http://0x7f.0x0.0x0.0x1:${victim.port}/`,
    `http://127.1:${victim.port}/`,
    `http://127.0.0.2:${victim.port}/`,
    `http://0.0.0.0:${victim.port}/`,
    `http://0:${victim.port}/`,
    `http://[::1]:${victim.port}/`,
    `http://[::]:${victim.port}/`,
    `http://[::ffff:127.0.0.1]:${victim.port}/`,
    `http://[::ffff:7f00:1]:${victim.port}/`,
    `http://[0:0:0:0:0:ffff:127.0.0.1]:${victim.port}/`,
    `http://[64:ff9b::7f00:1]:${victim.port}/`,
    `http://[2002:7f00:1::]:${victim.port}/`,
    `http://[::127.0.0.1]:${victim.port}/`, // IPv4-compatible ::/96: the URL parser writes ::7f00:1
    `http://[::7f00:1]:${victim.port}/`,
    `http://169.254.169.254/latest/meta-data/`,
    `http://[::ffff:169.254.169.254]/latest/meta-data/`,
    `http://10.0.0.1/`,
    `http://172.16.0.1/`,
    `http://192.168.1.1/`,
    `http://100.64.0.1/`,
    `http://224.0.0.1/`,
    `http://[fe80::1]/`,
    `http://[fc00::1]/`,
    `http://[ff02::1]/`,
    `http://192.0.2.1/`,
    `https://127.0.0.1:${victim.port}/`,
  ];

  it('T-WEB-SSRF: every private, local or special address form is refused directly, naming the address and allow_private', async () => {
    const cases = forbidden();
    expect(cases.length).toBeGreaterThanOrEqual(30);
    for (const url of cases) {
      const r = await fetch(url);
      expect(r.error?.type, url).toBe('SandboxViolation');
      // An address written in the URL is named; a name's address is not (internal DNS stays private).
      expect(r.content, url).toMatch(
        /refused to connect to (\S+ \(|\S+: the name resolves to a \w[\w -]* address)/,
      );
      expect(r.content, url).toMatch(/allow_private/);
    }
    expect(victim.log).toEqual([]);
  });

  it('T-WEB-SSRF: the same through every redirect status from an allowed server, and a redirect to another port of the allowed host', async () => {
    let count = 0;
    for (const status of [301, 302, 303, 307, 308]) {
      for (const to of forbidden().slice(0, 9)) {
        const r = await fetch(siteUrl(`/redirect?status=${status}&to=${encodeURIComponent(to)}`));
        // Another origin (another port of the same host too): not followed at all, handed back for
        // the model to ask for on its own (where it is refused directly).
        expect(r.ok, `${status} → ${to}`).toBe(true);
        expect(r.metadata?.redirect, `${status} → ${to}`).toBe(new URL(to).href);
        expect(r.content).toMatch(/redirects \(HTTP \d+\) to another origin/);
        count++;
      }
    }
    // An absolute redirect to the victim's port is another origin: handed back, and asked for on
    // its own it is refused.
    const other = await fetch(
      siteUrl(`/redirect?to=${encodeURIComponent(`http://127.0.0.1:${victim.port}/`)}`),
    );
    expect(other.metadata?.redirect).toBe(`http://127.0.0.1:${victim.port}/`);
    expect((await fetch(`http://127.0.0.1:${victim.port}/`)).error?.type).toBe('SandboxViolation');
    expect(count).toBe(45);
    expect(victim.log).toEqual([]);
  });

  it('T-WEB-SSRF: a name that resolves to a private address, or to a private one among public ones, is refused; it is resolved once, by the connection', async () => {
    const asked: string[] = [];
    const answers: Record<string, string[]> = {
      'docs.example.test': ['127.0.0.1'],
      'mixed.example.test': ['93.184.216.34', '127.0.0.1'],
      'v6.example.test': ['::1'],
      'mapped.example.test': ['::ffff:127.0.0.1'],
      'metadata.example.test': ['169.254.169.254'],
    };
    const lookup = ((host: string, _o: unknown, cb: (e: Error | null, a: unknown) => void) => {
      asked.push(host);
      const list = answers[host];
      if (!list) return cb(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }), []);
      cb(
        null,
        list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
    }) as unknown as typeof dns.lookup;
    const settings = fetchSettingsWith(lookup);
    for (const host of Object.keys(answers)) {
      await expect(
        fetchUrl(`http://${host}:${victim.port}/`, settings, new AbortController().signal),
        host,
      ).rejects.toMatchObject({ type: 'SandboxViolation' });
    }
    expect(asked).toEqual(Object.keys(answers)); // once each: the address judged is the one connected to
    expect(victim.log).toEqual([]);
  });

  it('network failures are ExecutionFailed results naming the host and the cause, never a crash', async () => {
    // A port nothing listens on: take one from the OS, then close it.
    const gone = await server(() => {});
    gone.close();
    const refusedConn = await fetch(
      `http://127.0.0.1:${gone.port}/`,
      {},
      {
        allow_private: [`127.0.0.1:${gone.port}`],
      },
    );
    expect(refusedConn.error?.type).toBe('ExecutionFailed');
    expect(refusedConn.content).toContain(`127.0.0.1:${gone.port} refused the connection`);
    expect(refusedConn.content).not.toMatch(/crashed/);

    const lookup = ((_h: string, _o: unknown, cb: (e: Error | null, a: unknown) => void) =>
      cb(
        Object.assign(new Error('getaddrinfo ENOTFOUND no-such-host.invalid'), { code: 'ENOTFOUND' }),
        [],
      )) as unknown as typeof dns.lookup;
    const settings = fetchSettingsWith(lookup);
    await expect(
      fetchUrl('http://no-such-host.invalid/', settings, new AbortController().signal),
    ).rejects.toMatchObject({
      type: 'ExecutionFailed',
      message: expect.stringMatching(/host name of no-such-host\.invalid does not resolve/),
    });
    // Through the whole pipeline, with the system resolver: `.invalid` never resolves (RFC 6761).
    const r = await fetch('http://no-such-host.invalid/');
    expect(r.error?.type).toBe('ExecutionFailed');
    expect(r.content).toMatch(/no-such-host\.invalid/);
    expect(r.content).not.toMatch(/crashed/);
  });

  it('only http and https: other schemes and URLs with credentials are BadArgs naming what is allowed', async () => {
    for (const url of [
      'file:///etc/passwd',
      'data:text/plain,hi',
      'ftp://example.org/',
      'javascript:alert(1)',
      'gopher://x/',
    ]) {
      const r = await fetch(url);
      expect(r.error?.type, url).toBe('BadArgs');
      expect(r.content, url).toMatch(/only http: and https:/);
    }
    const creds = await fetch(`http://user:pw@127.0.0.1:${site.port}/article`);
    expect(creds.error?.type).toBe('BadArgs');
    expect((await fetch('not a url')).error?.type).toBe('BadArgs');
  });

  it('an allowed local server: the article as Markdown, links absolute, scripts and navigation gone', async () => {
    const r = await fetch(siteUrl('/article'));
    expect(r.ok).toBe(true);
    expect(r.content).toMatch(/^# Tide tables\nSource: http:\/\/127\.0\.0\.1:\d+\/article/);
    expect(r.content).toContain('**high and low water**');
    expect(r.content).toContain(`[glossary](http://127.0.0.1:${site.port}/glossary#datum)`);
    expect(r.content).toContain('[chart catalogue](https://example.org/charts)');
    expect(r.content).toContain('```\n06:12  4.8 m');
    expect(r.content).not.toContain('alert(1)');
    expect(r.content).not.toContain('harbour office');
    expect(r.metadata).toMatchObject({ status: 200, contentType: 'text/html; charset=utf-8' });
    const text = await fetch(siteUrl('/article'), { format: 'text' });
    expect(text.content).toContain('A tide table lists the high and low water times');
    expect(text.content).not.toContain('**');
  });

  it('selector picks elements first; a table keeps its cells; no match is NotFound', async () => {
    const r = await fetch(siteUrl('/table'), { selector: '#ports' });
    expect(r.ok).toBe(true);
    expect(r.content).toContain('Brest');
    expect(r.content).toContain('7.0 m');
    expect(r.content).not.toContain('Ranges at springs');
    const html = await fetch(siteUrl('/table'), { selector: 'p.note', format: 'html' });
    expect(html.content).toContain('<p class="note">Ranges at springs.</p>');
    expect((await fetch(siteUrl('/table'), { selector: '.nothing' })).error?.type).toBe('NotFound');
  });

  it('JSON passes through; binary is refused with its type; HTTP 404 is ExecutionFailed with the status', async () => {
    expect((await fetch(siteUrl('/json'))).content).toContain('{"port":"Brest","range":7}');
    const png = await fetch(siteUrl('/png'));
    expect(png.error?.type).toBe('ExecutionFailed');
    expect(png.content).toMatch(/image\/png, not text/);
    const missing = await fetch(siteUrl('/missing'));
    expect(missing.error?.type).toBe('ExecutionFailed');
    expect(missing.content).toMatch(/HTTP 404/);
    expect(missing.metadata).toMatchObject({ status: 404 });
  });

  it('an endless body is cut at max_download_bytes and marked; a server that stalls ends at the timeout', async () => {
    const r = await fetch(siteUrl('/endless'), {}, { max_download_bytes: 100_000 });
    expect(r.ok).toBe(true);
    expect(r.metadata).toMatchObject({ bytes: 100_000, downloadCut: true });
    expect(r.content).toMatch(/\[download stopped at 100000 bytes: \[tools\.web\] max_download_bytes\]$/);
    const slow = await fetch(siteUrl('/slow'), {}, { timeout_seconds: 1 });
    expect(slow.error?.type).toBe('Timeout');
  });

  it('redirects: followed up to max_redirects, one more is an error; relative locations resolve', async () => {
    const ok = await fetch(siteUrl('/chain/4'));
    expect(ok.ok).toBe(true);
    expect(ok.metadata).toMatchObject({ redirects: expect.arrayContaining([siteUrl('/article')]) });
    const tooMany = await fetch(siteUrl('/chain/5'));
    expect(tooMany.error?.type).toBe('ExecutionFailed');
    expect(tooMany.content).toMatch(/more than 5 redirects/);
  });

  it('denied_hosts wins over allow_private; allowed_hosts leaves out every other host', async () => {
    const denied = await fetch(siteUrl('/article'), {}, { denied_hosts: ['127.0.0.*'] });
    expect(denied.error?.type).toBe('SandboxViolation');
    expect(denied.content).toMatch(/denied_hosts/);
    const notListed = await fetch('http://93.184.216.34/', {}, { allowed_hosts: ['docs.example.org'] });
    expect(notListed.error?.type).toBe('SandboxViolation');
    expect(notListed.content).toMatch(/allowed_hosts/);
  });

  it('network tier: asks by default (denied when nobody can answer); the allowlist, or a host-glob rule for its hosts, lets it run', async () => {
    const strict = createToolgate({
      config: validateConfig({ tools: { web: { allow_private: [`127.0.0.1:${site.port}`] } } }),
      roots: [root],
    });
    const [r] = await strict.execute([{ id: '1', name: 'web_fetch', arguments: { url: siteUrl('/json') } }]);
    expect(r?.ok).toBe(false);
    expect(r?.error?.type).toBe('Denied');
    expect((await fetch(siteUrl('/json'))).ok).toBe(true);
    // A rule for specific hosts (host-glob on the URL's host) is a standing approval for those only.
    const byHost = createToolgate({
      config: validateConfig({
        tools: {
          web: { allow_private: [`127.0.0.1:${site.port}`] },
          policy: {
            rules: [
              {
                tool: 'web_fetch',
                action: 'allow',
                conditions: [{ param: 'url', operator: 'host-glob', value: ['127.0.0.1', '*.docs.test'] }],
              },
            ],
          },
        },
      }),
      roots: [root],
    });
    const run = async (url: string) =>
      (await byHost.execute([{ id: '1', name: 'web_fetch', arguments: { url } }]))[0];
    expect((await run(siteUrl('/json')))?.ok).toBe(true);
    for (const other of [
      'http://127.0.0.1.evil.test/',
      'http://evil.test/?127.0.0.1',
      'http://docs.test.evil/',
    ]) {
      expect((await run(other))?.error?.type, other).toBe('Denied');
    }
  });
});
