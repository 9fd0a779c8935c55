import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderKind } from '../../src/core/conversation.js';
import { adapterFor } from '../../src/providers/adapters.js';
import { ProviderError } from '../../src/providers/provider.js';
import { streamTurn } from '../../src/providers/stream-turn.js';

/**
 * A provider that echoes what it was sent (issue #30 §11): a real server on 127.0.0.1 answers each
 * request with an error repeating the credential it got, in every spelling, inside a huge body. The
 * error toolgate makes of it (what reaches the person, the model and the journal) holds none of
 * them, and stays short.
 */
const KEY = 'sk-test-0123456789abcdef/+=Zq';

function credentialOf(req: http.IncomingMessage): string {
  const h = req.headers;
  return String(h.authorization ?? h['x-api-key'] ?? h['x-goog-api-key'] ?? '');
}

describe('issue #30 §11: provider error texts are cut and hold no configured key', () => {
  let server: http.Server;
  let base = '';
  const hits = new Map<string, number>();
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const path = req.url ?? '/';
      const scenario = path.split('/')[1] ?? '';
      const credential = credentialOf(req);
      const echo = `you sent ${credential} (key ${KEY}, encoded ${encodeURIComponent(KEY)})`;
      const n = (hits.get(scenario) ?? 0) + 1;
      hits.set(scenario, n);
      req.resume();
      if (scenario === 'json' || (scenario === 'retry' && n > 1)) {
        res.writeHead(401, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({ error: { message: `Incorrect API key: ${echo} ${'x'.repeat(20_000)}` } }),
        );
      }
      if (scenario === 'text') {
        res.writeHead(403, { 'content-type': 'text/plain' });
        return res.end(`${'-'.repeat(250)}${echo}`);
      }
      if (scenario === 'retry') {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
        return res.end(JSON.stringify({ error: { message: `slow down, ${echo}` } }));
      }
      // Mid-stream: an error event after the stream began (the shape each format's decoder reads).
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const data = JSON.stringify({ type: 'error', error: { type: 'auth', message: echo } });
      res.end(`event: error\ndata: ${data}\n\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const turn = { model: 'm', messages: [{ role: 'user' as const, text: 'hi' }], tools: [], maxTokens: 16 };

  async function failure(kind: ProviderKind, scenario: string, retries: string[] = []) {
    hits.clear();
    try {
      await streamTurn(
        adapterFor(kind),
        turn,
        { baseUrl: `${base}/${scenario}`, apiKey: KEY },
        {
          retries: 2,
          backoffMs: 0,
          onRetry: (_attempt, reason) => retries.push(reason),
        },
      );
    } catch (error) {
      expect(error).toBeInstanceOf(ProviderError);
      return error as ProviderError;
    }
    throw new Error('the turn did not fail');
  }

  const kinds: ProviderKind[] = ['openai', 'openai-responses', 'anthropic', 'gemini'];
  const forms = [KEY, encodeURIComponent(KEY), JSON.stringify(KEY).slice(1, -1)];

  it('issue #30 §11: an error body echoing the key, JSON or text, becomes a short error without it, for every format', async () => {
    for (const kind of kinds) {
      for (const scenario of ['json', 'text']) {
        const error = await failure(kind, scenario);
        expect(error.message, `${kind} ${scenario}`).toContain('[REDACTED]');
        for (const form of forms) expect(error.message).not.toContain(form);
        expect(error.message).not.toContain(KEY.slice(0, 12));
        expect(error.message.length).toBeLessThan(800);
        expect(error.status).toBe(scenario === 'json' ? 401 : 403);
      }
    }
  });

  it('issue #30 §11: the retry reasons and a mid-stream error event hold no key either', async () => {
    for (const kind of kinds) {
      const reasons: string[] = [];
      const error = await failure(kind, 'retry', reasons);
      expect(reasons.length, kind).toBeGreaterThan(0);
      for (const text of [...reasons, error.message]) expect(text).not.toContain(KEY.slice(0, 12));
    }
    for (const kind of ['openai', 'anthropic'] as const) {
      const error = await failure(kind, 'stream');
      expect(error.message, kind).toContain('mid-stream');
      expect(error.message).not.toContain(KEY.slice(0, 12));
    }
  });
});
