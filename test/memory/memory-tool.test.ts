import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { createToolgate, type Toolgate } from '../../src/toolgate.js';
import { memoryNamespace } from '../../src/tools/memory/memory-namespace.js';
import { runCliAsync } from '../helpers/run-cli-async.js';
import { makeTempDir } from '../helpers/workspace.js';

const root = makeTempDir('toolgate-memory-');
/** No approver: memory must run without asking anyone. */
const gateWith = (memory: Record<string, unknown> = { file: ':memory:' }) =>
  createToolgate({ config: validateConfig({ tools: { memory } }), roots: [root] });

async function call(gate: Toolgate, args: Record<string, unknown>) {
  const [r] = await gate.execute([{ id: '1', name: 'memory', arguments: args }]);
  if (!r) throw new Error('no result');
  return r;
}
function meta(r: { metadata?: Record<string, unknown> | undefined }): Record<string, unknown> {
  if (!r.metadata) throw new Error('the result has no metadata');
  return r.metadata;
}
const key = fc.string({ minLength: 1, maxLength: 30 });
const value = fc.string({ maxLength: 200 });

describe('memory (issue #15; seed 001 Properties 50-52)', () => {
  it('Property 50: any value stored under any key comes back the same', async () => {
    const gate = gateWith();
    await fc.assert(
      fc.asyncProperty(key, value, async (k, v) => {
        expect((await call(gate, { action: 'set', key: k, value: v })).ok).toBe(true);
        const r = await call(gate, { action: 'get', key: k });
        expect(r.ok).toBe(true);
        expect(r.content).toBe(v);
      }),
      { numRuns: 200 },
    );
  });

  it('Property 51: a deleted key is then not found', async () => {
    const gate = gateWith();
    await fc.assert(
      fc.asyncProperty(key, value, async (k, v) => {
        await call(gate, { action: 'set', key: k, value: v });
        expect((await call(gate, { action: 'delete', key: k })).ok).toBe(true);
        const r = await call(gate, { action: 'get', key: k });
        expect(r.error?.type).toBe('NotFound');
        expect(r.content).toMatch(/nothing is stored under/);
      }),
      { numRuns: 200 },
    );
  });

  it('Property 52: listing returns exactly the keys stored (sets, overwrites and deletes in any order)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.boolean(), fc.constantFrom('a', 'b', 'c', 'd', 'ä', 'key with space'), value), {
          maxLength: 15,
        }),
        async (ops) => {
          const gate = gateWith();
          const model = new Set<string>();
          for (const [set, k, v] of ops) {
            if (set) {
              await call(gate, { action: 'set', key: k, value: v });
              model.add(k);
            } else {
              await call(gate, { action: 'delete', key: k });
              model.delete(k);
            }
          }
          const r = await call(gate, { action: 'list' });
          expect([...(meta(r).keys as string[])].sort()).toEqual([...model].sort());
        },
      ),
      { numRuns: 100 },
    );
  });

  it('search finds keys and values by words, best match first; FTS syntax in a query is just words', async () => {
    const gate = gateWith();
    await call(gate, {
      action: 'set',
      key: 'deploy',
      value: 'Deploy with make release; the tide of tags goes to origin.',
    });
    await call(gate, { action: 'set', key: 'tests', value: 'Run npm test before every commit.' });
    await call(gate, { action: 'set', key: 'tide', value: 'Spring tide tables: tide tide.' });
    const r = await call(gate, { action: 'search', query: 'tide tables' });
    const keys = (meta(r).results as { key: string }[]).map((h) => h.key);
    expect(keys[0]).toBe('tide');
    expect(keys).toContain('deploy');
    expect(keys).not.toContain('tests');
    for (const q of ['"unbalanced', 'a AND OR NOT', 'NEAR(x y', '*', 'col:value']) {
      expect((await call(gate, { action: 'search', query: q })).ok, q).toBe(true);
    }
    expect((await call(gate, { action: 'search', query: 'nothing-here-zzz' })).content).toBe(
      'Nothing in memory matches.',
    );
  });

  it('kept in its own file: survives a restart; namespaces do not see each other; bad requests are clear', async () => {
    const file = path.join(makeTempDir('toolgate-memory-file-'), 'memory.db');
    const first = gateWith({ file });
    await call(first, { action: 'set', key: 'build', value: 'npm run build' });
    await first.close();
    const again = gateWith({ file });
    expect((await call(again, { action: 'get', key: 'build' })).content).toBe('npm run build');
    const other = gateWith({ file, namespace: 'other' });
    expect((await call(other, { action: 'list' })).metadata?.keys).toEqual([]);
    expect((await call(again, { action: 'set', key: 'x' })).error?.type).toBe('BadArgs');
    expect((await call(again, { action: 'get' })).error?.type).toBe('BadArgs');
    expect((await call(again, { action: 'delete', key: 'never' })).error?.type).toBe('NotFound');
  });

  it('a store made before words were stemmed gets the stemming index, its entries kept', async () => {
    const file = path.join(makeTempDir('toolgate-memory-old-'), 'memory.db');
    const old = new Database(file);
    old.exec(`CREATE TABLE memory (id INTEGER PRIMARY KEY, namespace TEXT NOT NULL, key TEXT NOT NULL,
      value TEXT NOT NULL, updated_at INTEGER NOT NULL, UNIQUE (namespace, key));
      CREATE VIRTUAL TABLE memory_fts USING fts5(key, value, content='memory', content_rowid='id');
      CREATE TRIGGER memory_ai AFTER INSERT ON memory BEGIN
        INSERT INTO memory_fts(rowid, key, value) VALUES (new.id, new.key, new.value);
      END;`);
    old
      .prepare('INSERT INTO memory (namespace, key, value, updated_at) VALUES (?, ?, ?, 0)')
      .run(JSON.stringify(['project', 'ann']), 'ci', 'Release builds run nightly.');
    old.close();
    const gate = createToolgate({
      config: validateConfig({ tools: { memory: { file, user: 'ann' } } }),
      roots: [root],
    });
    const r = await call(gate, { action: 'search', query: 'build' });
    expect((meta(r).results as { key: string }[]).map((h) => h.key)).toEqual(['ci']);
    await gate.close();
  });
});

describe('namespaces share nothing, not even ranking statistics (review finding, HIGH)', () => {
  const word = fc.constantFrom('harbour', 'ferry', 'tide', 'pier', 'hunter', 'secret', 'password', 'storm');
  const text = fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
  it('Property: what one namespace stores never changes the results or scores of another namespace’s search', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(text, { minLength: 1, maxLength: 6 }),
        fc.array(text, { maxLength: 8 }),
        fc.array(word, { minLength: 1, maxLength: 3 }),
        async (bobs, alices, query) => {
          const search = async (withAlice: boolean) => {
            const file = path.join(makeTempDir('toolgate-memory-ns-'), 'memory.db');
            const alice = gateWith({ file, namespace: 'alice' });
            const bob = gateWith({ file, namespace: 'bob' });
            // Alice's entries go in first, around and after Bob's, as they would over time.
            for (const [i, t] of (withAlice ? alices : []).entries())
              await call(alice, { action: 'set', key: `a${i}`, value: t });
            for (const [i, t] of bobs.entries()) await call(bob, { action: 'set', key: `b${i}`, value: t });
            if (withAlice) await call(alice, { action: 'set', key: 'late', value: query.join(' ') });
            const r = await call(bob, { action: 'search', query: query.join(' ') });
            await alice.close();
            await bob.close();
            return meta(r).results;
          };
          expect(await search(true)).toEqual(await search(false));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('a store made with one index for every namespace gets one per namespace, its entries kept', async () => {
    const file = path.join(makeTempDir('toolgate-memory-shared-'), 'memory.db');
    const old = new Database(file);
    old.exec(`CREATE TABLE memory (id INTEGER PRIMARY KEY, namespace TEXT NOT NULL, key TEXT NOT NULL,
      value TEXT NOT NULL, updated_at INTEGER NOT NULL, UNIQUE (namespace, key));
      CREATE VIRTUAL TABLE memory_fts USING fts5(key, value, content='memory', content_rowid='id', tokenize='porter unicode61');
      CREATE TRIGGER memory_ai AFTER INSERT ON memory BEGIN
        INSERT INTO memory_fts(rowid, key, value) VALUES (new.id, new.key, new.value);
      END;`);
    const put = old.prepare('INSERT INTO memory (namespace, key, value, updated_at) VALUES (?, ?, ?, 0)');
    put.run(memoryNamespace('project', 'alice'), 'pw', 'alice secret password hunter');
    put.run(memoryNamespace('project', 'bob'), 'probe', 'hunter');
    put.run(memoryNamespace('project', 'bob'), 'control', 'zzcontrol');
    old.close();
    const bob = gateWith({ file, user: 'bob' });
    const r = await call(bob, { action: 'search', query: 'hunter zzcontrol' });
    // Both of bob's words are as rare in his namespace: equal scores, whatever alice holds.
    const scores = (meta(r).results as { key: string; score: number }[]).map((h) => h.score);
    expect(scores).toHaveLength(2);
    expect(scores[0]).toBe(scores[1]);
    await call(bob, { action: 'set', key: 'more', value: 'hunter again' });
    expect(
      (meta(await call(bob, { action: 'search', query: 'again' })).results as { key: string }[]).map(
        (h) => h.key,
      ),
    ).toEqual(['more']);
    await bob.close();
    const db = new Database(file, { readonly: true });
    expect(
      db
        .prepare(
          "SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'memory_fts_%' AND type = 'table' AND sql LIKE '%fts5%'",
        )
        .get(),
    ).toEqual({ n: 2 });
    expect(
      db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name IN ('memory_fts', 'memory_ai')").get(),
    ).toEqual({ n: 0 });
    db.close();
  });

  it('four processes opening a store with the shared index at once all work: it is split once (second review)', async () => {
    for (let round = 0; round < 3; round++) {
      const dir = makeTempDir('toolgate-memory-race-');
      mkdirSync(path.join(dir, '.toolgate'));
      const file = path.join(dir, '.toolgate', 'memory.db');
      const old = new Database(file);
      old.exec(`CREATE TABLE memory (id INTEGER PRIMARY KEY, namespace TEXT NOT NULL, key TEXT NOT NULL,
        value TEXT NOT NULL, updated_at INTEGER NOT NULL, UNIQUE (namespace, key));
        CREATE VIRTUAL TABLE memory_fts USING fts5(key, value, content='memory', content_rowid='id');`);
      for (const user of ['alice', 'bob'])
        old
          .prepare('INSERT INTO memory (namespace, key, value, updated_at) VALUES (?, ?, ?, 0)')
          .run(memoryNamespace('project', user), 'plan', `${user} deployment plan`);
      old.exec("INSERT INTO memory_fts(memory_fts) VALUES ('rebuild')");
      old.close();
      const runs = ['alice', 'bob', 'alice', 'bob'].map((user) =>
        runCliAsync(['exec', '--no-journal', '--user', user, '--root', dir], {
          cwd: dir,
          input: JSON.stringify([
            { id: 's', name: 'memory', arguments: { action: 'search', query: 'deployment' } },
          ]),
        }).then((r) => ({ user, r })),
      );
      for (const { user, r } of await Promise.all(runs)) {
        const [result] = JSON.parse(r.stdout);
        expect(result.ok, `${user}: ${r.stdout} ${r.stderr}`).toBe(true);
        expect(result.content).toContain(`${user} deployment plan`);
      }
    }
  });
});
