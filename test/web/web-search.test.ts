import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * Three servers answering as the real APIs do (their documented response shapes): SearXNG's JSON
 * API, Brave's Web Search API and Tavily's search endpoint. Each answers `n` results, where `n` is
 * read from the query text ("… n=7"), so a test can ask for more or fewer than there are.
 */
function results(query: string) {
  const n = Number(/n=(\d+)/.exec(query)?.[1] ?? 3);
  return Array.from({ length: n }, (_, i) => ({
    title: `Result ${i} for ${query}`,
    url: `https://example.org/${i}`,
    text: `Snippet <strong>${i}</strong>`,
  }));
}

describe('web_search (issue #15)', () => {
  const seen: Seen[] = [];
  let server: http.Server;
  let base = '';
  const root = makeTempDir('toolgate-search-');
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        const url = new URL(req.url ?? '/', 'http://x');
        res.setHeader('content-type', 'application/json');
        if (url.pathname === '/searxng/search') {
          const q = url.searchParams.get('q') ?? '';
          return res.end(
            JSON.stringify({
              query: q,
              number_of_results: 0,
              results: results(q).map((r) => ({
                url: r.url,
                title: r.title,
                content: r.text,
                engine: 'duckduckgo',
                score: 1,
              })),
              answers: [],
              suggestions: [],
            }),
          );
        }
        if (url.pathname === '/brave/res/v1/web/search') {
          if (req.headers['x-subscription-token'] !== 'brave-key') {
            res.statusCode = 401;
            return res.end('{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID"}}');
          }
          const q = url.searchParams.get('q') ?? '';
          return res.end(
            JSON.stringify({
              type: 'search',
              query: { original: q },
              web: {
                type: 'search',
                results: results(q).map((r) => ({
                  title: r.title,
                  url: r.url,
                  description: r.text,
                  type: 'search_result',
                })),
              },
            }),
          );
        }
        if (url.pathname === '/tavily/search' && req.method === 'POST') {
          if (req.headers.authorization !== 'Bearer tvly-key') {
            res.statusCode = 401;
            return res.end('{"detail":{"error":"Unauthorized"}}');
          }
          const { query } = JSON.parse(body) as { query: string };
          return res.end(
            JSON.stringify({
              query,
              answer: null,
              results: results(query).map((r) => ({
                title: r.title,
                url: r.url,
                content: r.text,
                score: 0.9,
              })),
              response_time: 0.5,
            }),
          );
        }
        res.statusCode = 404;
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  const gate = (search: Record<string, unknown>) =>
    createToolgate({
      config: validateConfig({ tools: { approval: { allowlist: ['web_search'] }, web: { search } } }),
      roots: [root],
      approver: approveAll,
    });
  const providers = () => [
    { name: 'searxng', search: { provider: 'searxng', base_url: `${base}/searxng` } },
    {
      name: 'brave',
      search: { provider: 'brave', base_url: `${base}/brave/res/v1/web/search`, api_key: 'brave-key' },
    },
    {
      name: 'tavily',
      search: { provider: 'tavily', base_url: `${base}/tavily/search`, api_key: 'tvly-key' },
    },
  ];
  const run = async (search: Record<string, unknown>, args: Record<string, unknown>) => {
    const [r] = await gate(search).execute([{ id: '1', name: 'web_search', arguments: args }]);
    if (!r) throw new Error('no result');
    return r;
  };

  it('each provider, in its own wire format: {title, url, snippet} JSON, the readable list as display', async () => {
    for (const { name, search } of providers()) {
      const r = await run(search, { query: 'tide tables n=3', num_results: 5 });
      expect(r.ok, name).toBe(true);
      const answer = JSON.parse(r.content) as {
        provider: string;
        results: { title: string; url: string; snippet: string }[];
      };
      expect(answer.provider).toBe(name);
      expect(answer.results).toEqual(
        [0, 1, 2].map((i) => ({
          title: `Result ${i} for tide tables n=3`,
          url: `https://example.org/${i}`,
          snippet: `Snippet ${i}`,
        })),
      );
      expect(r.display).toContain('1. Result 0 for tide tables n=3\n   https://example.org/0');
    }
    const brave = seen.find((s) => s.url.startsWith('/brave'));
    expect(brave?.url).toContain('count=5');
    const tavily = seen.find((s) => s.url.startsWith('/tavily'));
    expect(JSON.parse(tavily?.body ?? '{}')).toMatchObject({ query: 'tide tables n=3', max_results: 5 });
    expect(seen.find((s) => s.url.startsWith('/searxng'))?.url).toContain('format=json');
  });

  it('Property 32: for any num_results, at most that many results, whatever the provider returns', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0, 1, 2),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 30 }),
        async (which, asked, available) => {
          const { search } = providers()[which] as { search: Record<string, unknown> };
          const r = await run(search, { query: `q n=${available}`, num_results: asked });
          expect(r.ok).toBe(true);
          const { results: got } = JSON.parse(r.content) as { results: unknown[] };
          expect(got.length).toBe(Math.min(asked, available));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('not configured, no key, a wrong key, num_results over 20: clear errors naming what to set', async () => {
    const none = await run({}, { query: 'x' });
    expect(none.error?.type).toBe('ExecutionFailed');
    expect(none.content).toMatch(/\[tools\.web\.search\] provider/);
    const noKey = await run(
      {
        provider: 'brave',
        base_url: `${base}/brave/res/v1/web/search`,
        api_key_env: 'TOOLGATE_TEST_NO_SUCH_KEY',
      },
      { query: 'x' },
    );
    expect(noKey.content).toMatch(/TOOLGATE_TEST_NO_SUCH_KEY/);
    const wrong = await run(
      { provider: 'tavily', base_url: `${base}/tavily/search`, api_key: 'nope' },
      { query: 'x' },
    );
    expect(wrong.error?.type).toBe('ExecutionFailed');
    expect(wrong.content).toMatch(/HTTP 401 \(check the API key\)/);
    expect((await run(providers()[0]?.search ?? {}, { query: 'x', num_results: 21 })).error?.type).toBe(
      'BadArgs',
    );
    const noBase = await run({ provider: 'searxng' }, { query: 'x' });
    expect(noBase.content).toMatch(/base_url/);
  });

  it('the key comes from the environment by default (BRAVE_API_KEY)', async () => {
    process.env.BRAVE_API_KEY = 'brave-key';
    try {
      const r = await run(
        { provider: 'brave', base_url: `${base}/brave/res/v1/web/search` },
        { query: 'env n=1' },
      );
      expect(r.ok).toBe(true);
    } finally {
      delete process.env.BRAVE_API_KEY;
    }
  });
});
