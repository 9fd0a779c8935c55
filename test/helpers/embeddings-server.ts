import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Words that mean the same thing share a dimension: a tiny, deterministic stand-in for a real
 * embedding model, so a paraphrase with no word in common still lands near its note.
 */
const CONCEPTS: readonly string[][] = [
  ['car', 'automobile', 'vehicle'],
  ['tyres', 'tires', 'wheels', 'tyre'],
  ['winter', 'cold', 'season'],
  ['milk', 'bread', 'dairy', 'loaf', 'groceries'],
  ['grocery', 'supermarket', 'buy', 'purchase', 'shop'],
  ['physician', 'doctor'],
  ['antibiotics', 'medication', 'prescribed', 'medicine'],
  ['infection', 'illness', 'sick'],
  ['deploy', 'ship', 'release', 'live', 'production'],
  ['application', 'website', 'web', 'app'],
  ['puppy', 'dog'],
  ['sneakers', 'footwear', 'shoes'],
  ['chewed', 'ate'],
  ['invoice', 'bill', 'accountant'],
  ['overdue', 'late', 'unpaid'],
];
const DIMENSIONS = 64;
const conceptOf = new Map(CONCEPTS.flatMap((words, i) => words.map((w) => [w, i] as const)));

/** The vector of a text: its concepts, plus a faint hashed trace of every other word. */
export function embedText(text: string): number[] {
  const v = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const concept = conceptOf.get(word);
    if (concept !== undefined) v[concept] = (v[concept] as number) + 1;
    else {
      let h = 0;
      for (const c of word) h = (h * 31 + c.charCodeAt(0)) >>> 0;
      const d = 32 + (h % 32);
      v[d] = (v[d] as number) + 0.3;
    }
  }
  return v;
}

/**
 * An OpenAI-compatible `POST /v1/embeddings` server on 127.0.0.1 answering with `embedText`. It
 * counts the texts it embedded; `failing = true` makes it answer 503.
 */
export async function startEmbeddingsServer() {
  const state = { requests: 0, texts: 0, failing: false, models: new Set<string>() };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.requests++;
      if (state.failing || req.url !== '/v1/embeddings' || req.method !== 'POST') {
        res.writeHead(state.failing ? 503 : 404, { 'content-type': 'application/json' });
        return res.end('{"error":"unavailable"}');
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; input: string[] };
      state.models.add(body.model);
      state.texts += body.input.length;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          model: body.model,
          data: body.input.map((text, index) => ({ object: 'embedding', index, embedding: embedText(text) })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    state,
    url: `http://127.0.0.1:${port}/v1/embeddings`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
