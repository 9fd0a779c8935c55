import { mkdirSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createGzip } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import type { ToolResult } from '../../src/core/tool-result.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { createToolgate, type Toolgate } from '../../src/toolgate.js';
import { startEmbeddingsServer } from '../helpers/embeddings-server.js';
import { makeTempDir } from '../helpers/workspace.js';

const root = makeTempDir('toolgate-notes-');
const fileIn = (name: string) => path.join(makeTempDir('toolgate-notes-db-'), name);
/** No approver: the note tools must run without asking anyone. */
const gateWith = (memory: Record<string, unknown>, more: { user?: string } = {}) =>
  createToolgate({ config: validateConfig({ tools: { memory } }), roots: [root], ...more });

async function call(gate: Toolgate, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const [r] = await gate.execute([{ id: '1', name, arguments: args }]);
  if (!r) throw new Error('no result');
  return r;
}
type Found = { text: string; source: string; score: number; note_id: string };
const found = (r: ToolResult) => {
  expect(r.ok, r.content).toBe(true);
  return JSON.parse(r.content) as Found[];
};
const save = async (gate: Toolgate, content: string) => {
  const r = await call(gate, 'memory_save', { content });
  expect(r.ok, r.content).toBe(true);
  return (JSON.parse(r.content) as { note_id: string }).note_id;
};

describe('memory_search / memory_save / memory_update / memory_delete (issue #15; seed 003 Memory Tools)', () => {
  it('save returns a note-{uuid} id; search finds it as {text, source, score, note_id}; update keeps the id; delete removes it', async () => {
    const gate = gateWith({ file: ':memory:' });
    const id = await save(gate, 'The staging database lives on port 5433.');
    expect(id).toMatch(/^note-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const [first] = found(await call(gate, 'memory_search', { query: 'staging database port' }));
    expect(first).toEqual({
      text: 'The staging database lives on port 5433.',
      source: 'note',
      score: 1,
      note_id: id,
    });

    const updated = await call(gate, 'memory_update', {
      note_id: id,
      content: 'Staging moved to port 6543.',
    });
    expect(JSON.parse(updated.content)).toEqual({ note_id: id, message: 'Note updated.' });
    const after = found(await call(gate, 'memory_search', { query: 'staging port' }));
    expect(after.map((h) => [h.note_id, h.text])).toEqual([[id, 'Staging moved to port 6543.']]);

    expect(JSON.parse((await call(gate, 'memory_delete', { note_id: id })).content)).toEqual({
      message: `Note ${id} deleted.`,
    });
    expect(found(await call(gate, 'memory_search', { query: 'staging port' }))).toEqual([]);
    for (const name of ['memory_delete', 'memory_update']) {
      const r = await call(
        gate,
        name,
        name === 'memory_delete' ? { note_id: id } : { note_id: id, content: 'x' },
      );
      expect(r.error?.type, name).toBe('NotFound');
      expect(r.content).toMatch(/memory_search finds notes/);
    }
    const bad = await call(gate, 'memory_delete', { note_id: '../../etc/passwd' });
    expect(bad.error?.type).toBe('BadArgs');
    expect((await call(gate, 'memory_search', { query: 'x', top_k: 21 })).error?.type).toBe('BadArgs');
    expect((await call(gate, 'memory_save', { content: '' })).error?.type).toBe('BadArgs');
  });

  it('top_k: at most top_k results (default 5), best first, whatever is stored', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 25 }),
        fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
        async (stored, topK) => {
          const gate = gateWith({ file: ':memory:' });
          for (let i = 0; i < stored; i++) await save(gate, `harbour note ${i} ${'tide '.repeat(i % 4)}`);
          const hits = found(
            await call(gate, 'memory_search', { query: 'harbour tide', ...(topK ? { top_k: topK } : {}) }),
          );
          expect(hits.length).toBe(Math.min(stored, topK ?? 5));
          for (let i = 1; i < hits.length; i++)
            expect((hits[i - 1] as Found).score).toBeGreaterThanOrEqual((hits[i] as Found).score);
          await gate.close();
        },
      ),
      { numRuns: 100 },
    );
  });

  it('one store, both surfaces: memory entries are found by memory_search, notes are listed by memory', async () => {
    const gate = gateWith({ file: ':memory:' });
    await call(gate, 'memory', { action: 'set', key: 'build', value: 'Build with npm run build.' });
    const id = await save(gate, 'Release builds are signed.');
    const hits = found(await call(gate, 'memory_search', { query: 'build' }));
    expect(hits.map((h) => [h.source, h.note_id]).sort()).toEqual([
      ['memory', 'build'],
      ['note', id],
    ]);
    expect((await call(gate, 'memory', { action: 'list' })).metadata?.keys).toEqual(['build', id]);
    const words = await call(gate, 'memory_search', { query: 'build' });
    expect(words.metadata).toMatchObject({ retrieval: 'fts', notes: [expect.stringMatching(/words only/)] });
  });

  it('namespaces: one user never sees, updates or deletes another user’s notes, nor another project’s (any names)', async () => {
    const file = fileIn('memory.db');
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 12 }),
        fc.string({ minLength: 1, maxLength: 12 }),
        fc.boolean(),
        async (a, b, byConfig) => {
          fc.pre(a !== b);
          const as = (user: string, project = 'p') =>
            byConfig
              ? gateWith({ file, user, namespace: project })
              : gateWith({ file, namespace: project }, { user });
          const alice = as(a);
          const id = await save(alice, `secret of ${a}: the gate code is 4711`);
          for (const other of [as(b), as(a, 'other-project')]) {
            expect(found(await call(other, 'memory_search', { query: 'secret gate code 4711' }))).toEqual([]);
            expect(
              (await call(other, 'memory_update', { note_id: id, content: 'mine now' })).error?.type,
            ).toBe('NotFound');
            expect((await call(other, 'memory_delete', { note_id: id })).error?.type).toBe('NotFound');
            expect((await call(other, 'memory', { action: 'list' })).metadata?.keys).toEqual([]);
            await other.close();
          }
          expect(found(await call(alice, 'memory_search', { query: 'gate code' }))[0]?.note_id).toBe(id);
          await call(alice, 'memory_delete', { note_id: id });
          await alice.close();
        },
      ),
      { numRuns: 100 },
    );
    // --user wins over [tools.memory] user
    const byFlag = gateWith({ file, user: 'carol' }, { user: 'dave' });
    const id = await save(byFlag, 'dave wrote this');
    const carol = gateWith({ file, user: 'carol' });
    expect(found(await call(carol, 'memory_search', { query: 'dave wrote' }))).toEqual([]);
    const dave = gateWith({ file }, { user: 'dave' });
    expect(found(await call(dave, 'memory_search', { query: 'dave wrote' }))[0]?.note_id).toBe(id);
  });

  it('include_conversation: the session’s messages in the journal are searched too; without a journal it says so', async () => {
    const journal = SqliteJournal.open(fileIn('journal.db'));
    journal.appendMessage('S', 'user', { text: 'Remember that the ferry leaves from pier 7.' });
    journal.appendMessage('S', 'assistant', { text: 'Noted.' });
    journal.appendMessage('OTHER', 'user', { text: 'The ferry of another session leaves from pier 9.' });
    const gate = createToolgate({
      config: validateConfig({ tools: { memory: { file: ':memory:' } } }),
      roots: [root],
      journal,
      session: 'S',
    });
    await save(gate, 'Ferry tickets are in the blue folder.');
    const hits = found(
      await call(gate, 'memory_search', { query: 'ferry pier', include_conversation: true }),
    );
    // the note, the user's message, and the memory_save call itself (also part of the conversation)
    expect(new Set(hits.map((h) => h.source))).toEqual(new Set(['conversation', 'note']));
    const said = hits.find((h) => h.text.includes('pier 7'));
    expect(said?.source).toBe('conversation');
    expect(said?.text).toBe('user: Remember that the ferry leaves from pier 7.');
    expect(said?.note_id).toMatch(/^message-\d+$/);
    expect(hits.some((h) => h.text.includes('pier 9'))).toBe(false); // another session's
    const without = found(await call(gate, 'memory_search', { query: 'ferry pier' }));
    expect(without.map((h) => h.source)).toEqual(['note']);
    // a conversation hit is not a note: the note tools say so instead of touching anything
    expect((await call(gate, 'memory_delete', { note_id: said?.note_id })).error?.type).toBe('BadArgs');
    await gate.close();
    journal.close();

    const alone = gateWith({ file: ':memory:' });
    const r = await call(alone, 'memory_search', { query: 'ferry', include_conversation: true });
    expect(r.metadata?.notes).toContainEqual(expect.stringMatching(/no conversation is kept/));
  });
});

describe('hybrid search with an embeddings endpoint (issue #15)', () => {
  let server: Awaited<ReturnType<typeof startEmbeddingsServer>>;
  beforeAll(async () => {
    server = await startEmbeddingsServer();
  });
  afterAll(() => server.close());
  const hybrid = (file: string, url = server.url) => ({
    file,
    embeddings: { url, model: 'concepts-64', timeout_seconds: 5 },
  });

  // Each query says what one note says, in other words; the distractors share words with the queries.
  const NOTES = [
    'The car needs new tyres before winter.',
    'Buy milk and bread at the grocery.',
    'The physician prescribed antibiotics for the infection.',
    'Deploy the web application to production on Friday.',
    'The puppy chewed my sneakers.',
    'The invoice from the accountant is overdue.',
    'The season finale of the show was broadcast live.',
    'The bill of the duck is orange.',
    'My neighbour ate dinner late on Friday.',
    'The doctor of philosophy thesis has a cold opening.',
  ];
  const QUERIES: [string, number][] = [
    ['automobile wheels cold season', 0],
    ['purchase dairy loaf supermarket', 1],
    ['doctor gave medication illness', 2],
    ['ship website live', 3],
    ['dog ate footwear', 4],
    ['unpaid bill late', 5],
  ];

  async function meanReciprocalRank(gate: Toolgate, ids: string[]) {
    let sum = 0;
    for (const [query, want] of QUERIES) {
      const hits = found(await call(gate, 'memory_search', { query, top_k: 10 }));
      const rank = hits.findIndex((h) => h.note_id === ids[want]);
      sum += rank < 0 ? 0 : 1 / (rank + 1);
    }
    return sum / QUERIES.length;
  }

  it('hybrid ranking beats words alone on a paraphrase set; notes saved before embeddings are embedded on the next search', async () => {
    const file = fileIn('memory.db');
    const words = gateWith({ file });
    const ids: string[] = [];
    for (const note of NOTES) ids.push(await save(words, note));
    const ftsMrr = await meanReciprocalRank(words, ids);
    await words.close();

    const both = gateWith(hybrid(file));
    const before = server.state.texts;
    const r = await call(both, 'memory_search', { query: 'automobile wheels' });
    expect(r.metadata).toMatchObject({ retrieval: 'hybrid' });
    expect(server.state.texts - before).toBe(NOTES.length + 1); // the backfill, then the query
    const hybridMrr = await meanReciprocalRank(both, ids);
    // Words alone find none of the paraphrased notes (only distractors); meaning finds every one
    // in the first three, most of them first.
    expect(ftsMrr).toBe(0);
    expect(hybridMrr).toBeGreaterThan(0.6);
    for (const [query, want] of QUERIES) {
      const top3 = found(await call(both, 'memory_search', { query, top_k: 3 })).map((h) => h.note_id);
      expect(top3, query).toContain(ids[want]);
    }
    await both.close();
  });

  it('a note is embedded when saved and again when updated; weights decide the mix', async () => {
    const file = fileIn('memory.db');
    const gate = gateWith(hybrid(file));
    const before = server.state.texts;
    const id = await save(gate, 'The puppy chewed my sneakers.');
    expect(server.state.texts - before).toBe(1);
    await call(gate, 'memory_update', {
      note_id: id,
      content: 'The invoice from the accountant is overdue.',
    });
    expect(found(await call(gate, 'memory_search', { query: 'unpaid bill' }))[0]?.note_id).toBe(id);
    expect(found(await call(gate, 'memory_search', { query: 'dog footwear' }))).toEqual([]);
    // vector_weight 0: meaning counts for nothing, so a paraphrase with no shared word is not found
    const wordsOnly = gateWith({ ...hybrid(file), vector_weight: 0, fts_weight: 1 });
    expect(found(await call(wordsOnly, 'memory_search', { query: 'unpaid bill' }))).toEqual([]);
    await gate.close();
    await wordsOnly.close();
  });

  it('an endpoint that fails: the note is still saved, search falls back to words and says why', async () => {
    const file = fileIn('memory.db');
    const gate = gateWith(hybrid(file));
    server.state.failing = true;
    try {
      const saved = await call(gate, 'memory_save', { content: 'The ferry leaves from pier 7.' });
      expect(saved.ok).toBe(true);
      expect(JSON.parse(saved.content).message).toMatch(
        /searchable by words only until it can be embedded: .*HTTP 503/,
      );
      const r = await call(gate, 'memory_search', { query: 'ferry pier' });
      expect(found(r).map((h) => h.text)).toEqual(['The ferry leaves from pier 7.']);
      expect(r.metadata).toMatchObject({ retrieval: 'fts' });
      expect(r.metadata?.notes).toContainEqual(
        expect.stringMatching(
          /words only this time: the embeddings endpoint .* HTTP 503.*\[tools\.memory\] embeddings/,
        ),
      );
    } finally {
      server.state.failing = false;
    }
    const nothing = gateWith(hybrid(fileIn('memory.db'), 'http://127.0.0.1:9/v1/embeddings'));
    const down = await call(nothing, 'memory_search', { query: 'x' });
    expect(down.ok).toBe(true);
    expect(down.metadata).toMatchObject({ retrieval: 'fts' });
    await gate.close();
    await nothing.close();
  });
});

describe('a misbehaving embeddings endpoint never takes the process down (review finding, HIGH)', () => {
  /** Answers every request the way `mode` says; counts the bytes it managed to send. */
  async function badServer(
    mode: 'endless' | 'declared' | 'dimensions' | 'overflow' | 'error-endless' | 'error-gzip' | 'not-json',
  ) {
    const state = { sent: 0 };
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (mode === 'declared') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 ** 30) });
          res.write('{"data":[');
          return;
        }
        if (mode === 'not-json') {
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end('<html>a proxy page</html>');
        }
        if (mode === 'error-gzip') {
          // A small compressed body that inflates without end, sent with an error status.
          res.writeHead(500, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
          const gzip = createGzip();
          gzip.pipe(res);
          const zeros = Buffer.alloc(1 << 20);
          const pump = () => {
            while (!res.destroyed && state.sent < 2 ** 32) {
              state.sent += zeros.length;
              if (!gzip.write(zeros)) return void gzip.once('drain', pump);
            }
          };
          res.on('error', () => {});
          gzip.on('error', () => {});
          return pump();
        }
        if (mode === 'dimensions' || mode === 'overflow') {
          const embedding = mode === 'dimensions' ? new Array(20_000).fill(0.5) : [1e39, 1, 1];
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ data: [{ index: 0, embedding }] }));
        }
        // endless: a valid start, then numbers forever (chunked, no length), as fast as it is read
        res.writeHead(mode === 'error-endless' ? 500 : 200, { 'content-type': 'application/json' });
        res.write('{"data":[{"index":0,"embedding":[0.5');
        const chunk = ',0.25'.repeat(200_000);
        const pump = () => {
          while (!res.destroyed && state.sent < 2 ** 30) {
            state.sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
        };
        res.on('error', () => {});
        pump();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/v1/embeddings`,
      state,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  for (const [mode, reason] of [
    ['endless', /more than 16777216 bytes/],
    ['declared', /1073741824 bytes, more than/],
    ['dimensions', /20000 numbers, more than 8192/],
    ['overflow', /not finite as a 32-bit float/],
    ['error-endless', /HTTP 500: \{"data"/],
    ['error-gzip', /HTTP 500/],
    ['not-json', /the answer is not JSON/],
  ] as const) {
    it(`${mode}: the note is saved, search falls back to words and says why, memory stays bounded`, async () => {
      const bad = await badServer(mode);
      try {
        const gate = gateWith({
          file: fileIn('memory.db'),
          embeddings: { url: bad.url, model: 'm', timeout_seconds: 20 },
        });
        const rss = process.memoryUsage().rss;
        const saved = await call(gate, 'memory_save', { content: 'The ferry leaves from pier 7.' });
        expect(saved.ok, saved.content).toBe(true);
        expect(JSON.parse(saved.content).message).toMatch(reason);
        const r = await call(gate, 'memory_search', { query: 'ferry pier' });
        expect(found(r).map((h) => h.text)).toEqual(['The ferry leaves from pier 7.']);
        expect(r.metadata).toMatchObject({ retrieval: 'fts' });
        expect(process.memoryUsage().rss - rss).toBeLessThan(256 * 1024 * 1024);
        if (mode.includes('endless') || mode === 'error-gzip')
          expect(bad.state.sent).toBeLessThan(256 * 1024 * 1024); // cut off, not drained
        await gate.close();
      } finally {
        await bad.close();
      }
    });
  }
});

describe('the memory store is toolgate’s own state wherever the config puts it (review finding, HIGH)', () => {
  it('no tool reads, lists, searches, writes or deletes [tools.memory] file, named directly or through a linked directory', async () => {
    const ws = makeTempDir('toolgate-memfile-');
    mkdirSync(path.join(ws, 'state'));
    symlinkSync(path.join(ws, 'state'), path.join(ws, 'alias'));
    const gate = (user: string) =>
      createToolgate({
        config: validateConfig({ tools: { memory: { file: 'state/notes.db' } } }),
        roots: [ws],
        user,
        approver: approveAll,
      });
    const alice = gate('alice');
    await save(alice, 'alice secret password hunter2');
    await alice.close();
    const bob = gate('bob');
    for (const [name, args] of [
      ['read_file', { path: 'state/notes.db' }],
      ['read_file', { path: 'alias/notes.db' }],
      ['read_file', { path: 'state/notes.db-wal' }],
      ['read_many_files', { paths: ['state/notes.db'] }],
      ['write_file', { path: 'state/notes.db', content: 'garbage', overwrite: true }],
      ['delete_file', { path: 'alias/notes.db' }],
    ] as const) {
      const r = await call(bob, name, args);
      expect(r.content, `${name} ${JSON.stringify(args)}`).not.toMatch(/hunter2/);
      if (name !== 'read_many_files')
        expect(r.error?.type, `${name} ${JSON.stringify(args)}`).toBe('SandboxViolation');
    }
    const listing = await call(bob, 'list_directory', { path: 'state' });
    expect(listing.content).not.toMatch(/notes\.db"/);
    const globbed = await call(bob, 'glob', { pattern: '**/*.db' });
    expect(globbed.content).not.toMatch(/notes\.db/);
    const grepped = await call(bob, 'grep', { pattern: 'hunter2' });
    expect(grepped.content).not.toMatch(/notes\.db/);
    // The store itself is intact and still alice's alone.
    await bob.close();
    const again = gate('alice');
    expect(found(await call(again, 'memory_search', { query: 'hunter2' })).map((h) => h.text)).toEqual([
      'alice secret password hunter2',
    ]);
    await again.close();
  });
});
