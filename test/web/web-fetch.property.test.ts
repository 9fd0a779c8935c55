import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

/** Seed 001 Properties 29–31, each run against a real HTTP server on 127.0.0.1 serving what fast-check made. */
describe('web_fetch: seed 001 properties (issue #15)', () => {
  const pages = new Map<string, { type: string; body: string }>();
  let server: http.Server;
  let port = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const page = pages.get(req.url ?? '');
      res.writeHead(page ? 200 : 404, { 'content-type': page?.type ?? 'text/plain' });
      res.end(page?.body ?? 'missing');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => server.close());

  const root = makeTempDir('toolgate-web-prop-');
  let n = 0;
  const serve = (type: string, body: string) => {
    const path = `/p${++n}`;
    pages.set(path, { type, body });
    return `http://127.0.0.1:${port}${path}`;
  };
  const fetchPage = async (args: Record<string, unknown>) => {
    const gate = createToolgate({
      config: validateConfig({
        tools: { approval: { allowlist: ['web_fetch'] }, web: { allow_private: [`127.0.0.1:${port}`] } },
      }),
      roots: [root],
      approver: approveAll,
    });
    const [r] = await gate.execute([{ id: '1', name: 'web_fetch', arguments: args }]);
    if (!r) throw new Error('no result');
    return r;
  };
  const word = fc.stringMatching(/^[a-z]{2,10}$/);
  const sentence = fc.array(word, { minLength: 3, maxLength: 12 }).map((w) => w.join(' '));

  it('Property 29: any page, plain text or an HTML paragraph, comes back with its text', async () => {
    await fc.assert(
      fc.asyncProperty(sentence, fc.boolean(), async (text, html) => {
        const url = html
          ? serve('text/html', `<html><head><title>t</title></head><body><p>${text}</p></body></html>`)
          : serve('text/plain', text);
        const r = await fetchPage({ url });
        expect(r.ok).toBe(true);
        expect(r.content).toContain(text);
      }),
      { numRuns: 100 },
    );
  });

  it('Property 30: with a selector, only the matching elements come back', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(word, { minLength: 2, maxLength: 8 }),
        fc.array(fc.boolean(), { minLength: 2, maxLength: 8 }),
        async (words, picks) => {
          const marked = words.map((w, i) => ({ w: `${w}${i}`, pick: picks[i % picks.length] ?? false }));
          if (!marked.some((m) => m.pick)) (marked[0] as { pick: boolean }).pick = true;
          const body = marked.map((m) => `<div class="${m.pick ? 'pick' : 'other'}">${m.w}</div>`).join('');
          const r = await fetchPage({
            url: serve('text/html', `<html><body>${body}</body></html>`),
            selector: '.pick',
          });
          expect(r.ok).toBe(true);
          for (const m of marked) {
            if (m.pick) expect(r.content).toContain(m.w);
            else expect(r.content).not.toContain(m.w);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('Property 31: content longer than max_length is cut there and marked; shorter content is whole and unmarked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 100, max: 3000 }),
        fc.integer({ min: 1, max: 6000 }),
        async (max, size) => {
          const text = 'abcdefghij'.repeat(Math.ceil(size / 10)).slice(0, size);
          const r = await fetchPage({ url: serve('text/plain', text), max_length: max });
          expect(r.ok).toBe(true);
          const marker = `[cut at max_length ${max} characters]`;
          if (size > max) {
            expect(r.content).toContain(`${text.slice(0, max)}\n\n${marker}`);
            expect(r.content).not.toContain(text.slice(0, max + 1));
          } else {
            expect(r.content).toContain(text);
            expect(r.content).not.toContain(marker);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
