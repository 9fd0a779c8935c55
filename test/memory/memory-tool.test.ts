import path from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { createToolgate, type Toolgate } from '../../src/toolgate.js';
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
