import type dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { type Approver, approveAll, denyAll } from '../../src/core/confirmation.js';
import type { ToolResult } from '../../src/core/tool-result.js';
import { createToolgate } from '../../src/toolgate.js';
import { fetchUrl } from '../../src/tools/web/fetch-url.js';
import { fetchSettingsWith } from '../helpers/fetch-settings.js';
import { makeTempDir } from '../helpers/workspace.js';

/** Pages and redirects a hostile site serves, from a review that tried them (issue #15). */
describe('web_fetch against hostile pages (issue #15 review)', () => {
  const log: string[] = [];
  const otherLog: string[] = [];
  let site: http.Server;
  let other: http.Server;
  let port = 0;
  let otherPort = 0;
  const html = (res: http.ServerResponse, body: string) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(body);
  };
  beforeAll(async () => {
    site = http.createServer((req, res) => {
      log.push(req.url ?? '');
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/deep') return html(res, `<!doctype html><html><body>${'<div>'.repeat(32_000)}x`);
      if (path === '/table')
        return html(
          res,
          `<html><body><table>${'<tr><td>a</td><td>b</td></tr>'.repeat(8_000)}</table></body></html>`,
        );
      if (path === '/nested')
        return html(res, `<html><body>${'<div>'.repeat(400)}x${'</div>'.repeat(400)}</body></html>`);
      if (path === '/backtrack') return html(res, `<html><body>${'<div>'.repeat(100)}<x></x></body></html>`);
      if (path === '/go') {
        res.writeHead(302, { location: `http://localhost:${otherPort}/exfil?secret=hunter2` });
        return res.end();
      }
      return html(res, '<html><body><p>ok</p></body></html>');
    });
    other = http.createServer((req, res) => {
      otherLog.push(req.url ?? '');
      res.end('other');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    port = (site.address() as AddressInfo).port;
    otherPort = (other.address() as AddressInfo).port;
  });
  afterAll(() => {
    site.close();
    other.close();
  });

  const fetch = async (
    url: string,
    more: Record<string, unknown> = {},
    web: Record<string, unknown> = {},
    approver: Approver = approveAll,
    tools: Record<string, unknown> = { approval: { allowlist: ['web_fetch'] } },
  ): Promise<ToolResult> => {
    const gate = createToolgate({
      config: validateConfig({
        tools: {
          ...tools,
          web: { allow_private: [`127.0.0.1:${port}`, `localhost:${otherPort}`], ...web },
        },
      }),
      roots: [makeTempDir('toolgate-hostile-')],
      approver,
    });
    const [r] = await gate.execute([{ id: '1', name: 'web_fetch', arguments: { url, ...more } }]);
    return r as ToolResult;
  };
  const site_ = (p: string) => `http://127.0.0.1:${port}${p}`;

  /** Ticks of a 50 ms timer while `work` runs: a free event loop keeps ticking. */
  async function ticksDuring<T>(work: () => Promise<T>): Promise<{ value: T; ticks: number; ms: number }> {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    const start = Date.now();
    try {
      const value = await work();
      return { value, ticks, ms: Date.now() - start };
    } finally {
      clearInterval(timer);
    }
  }

  it('32,000 nested elements: refused at once as too deep, no stack overflow, the event loop free', async () => {
    const { value, ms } = await ticksDuring(() => fetch(site_('/deep')));
    expect(value.error?.type).toBe('ExecutionFailed');
    expect(value.content).toMatch(/nests its elements \d+ deep/);
    expect(ms).toBeLessThan(10_000);
  });

  it('a selector that backtracks for minutes: the call times out, the converter thread is killed, the event loop never stopped', async () => {
    const { value, ticks, ms } = await ticksDuring(() =>
      fetch(site_('/backtrack'), { selector: 'x div div div div div div div' }, { timeout_seconds: 2 }),
    );
    expect(value.error?.type).toBe('Timeout');
    expect(ms).toBeLessThan(6_000);
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(ms / 50) - 10); // ticked all along
    // the next page gets a fresh converter
    const next = await fetch(site_('/'));
    expect(next.ok, next.content).toBe(true);
    expect(next.content).toContain('ok');
  });

  it('a table of 8,000 rows converts in seconds (rows as lines past 2,000, not the cubic pipe-table path)', async () => {
    const { value, ms } = await ticksDuring(() => fetch(site_('/table'), {}, { timeout_seconds: 20 }));
    expect(value.ok, value.content).toBe(true);
    expect(value.content).toContain('a');
    expect(ms).toBeLessThan(15_000);
  });

  it('a selector matching nested elements: each is taken once (no square growth), the output within its limit', async () => {
    const r = await fetch(site_('/nested'), { selector: 'div', format: 'html' });
    expect(r.ok, r.content).toBe(true);
    expect(Buffer.byteLength(r.content)).toBeLessThan(64 * 1024);
    expect(r.content.match(/<div>/g)?.length).toBe(400); // the outermost div, once
  });

  it('an open redirect on an allowed host does not carry the request to another host: it is handed back, and that URL is asked about on its own', async () => {
    const rule = {
      policy: {
        rules: [
          {
            tool: 'web_fetch',
            action: 'allow',
            conditions: [{ param: 'url', operator: 'host-glob', value: ['127.0.0.1'] }],
          },
        ],
      },
    };
    const r = await fetch(site_('/go'), {}, {}, denyAll, rule);
    expect(r.ok).toBe(true);
    expect(r.metadata?.redirect).toBe(`http://localhost:${otherPort}/exfil?secret=hunter2`);
    expect(r.content).toMatch(/call web_fetch with that URL/);
    const direct = await fetch(`http://localhost:${otherPort}/exfil?secret=hunter2`, {}, {}, denyAll, rule);
    expect(direct.error?.type).toBe('Denied');
    expect(otherLog).toEqual([]);
  });

  it("a name's private address is not named in the refusal (no map of internal DNS); a literal address is", async () => {
    const lookup = ((_h: string, _o: unknown, cb: (e: Error | null, a: unknown) => void) =>
      cb(null, [{ address: '10.20.30.40', family: 4 }])) as unknown as typeof dns.lookup;
    const settings = fetchSettingsWith(lookup);
    const error = await fetchUrl(
      'http://intranet.corp.example/',
      settings,
      new AbortController().signal,
    ).catch((e: Error) => e);
    expect((error as { type?: string }).type).toBe('SandboxViolation');
    expect((error as Error).message).toMatch(
      /intranet\.corp\.example: the name resolves to a private address/,
    );
    expect((error as Error).message).not.toContain('10.20.30.40');
    const literal = await fetch('http://10.20.30.40/');
    expect(literal.content).toContain('10.20.30.40');
  });
});
