import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryReadCache, type ReadCache, type ReadRecord, sha256 } from './read-cache.js';
import { StaleGuard } from './stale-guard.js';

describe('MemoryReadCache (FR-TOOL-PATCH-02c: content hash at last read)', () => {
  it('a recorded read gives the SHA-256 of exactly that content, however it was recorded', () => {
    const cache = new MemoryReadCache();
    cache.recordContent('/w/a.txt', Buffer.from('hello\n'), 1);
    cache.record('/w/b.txt', sha256('b'), 2);
    cache.recordContent('/w/c.txt', 'text as a string', 3);
    expect(cache.get('/w/a.txt')).toEqual({ sha256: sha256('hello\n'), readAt: 1 });
    expect(cache.get('/w/b.txt')).toEqual({ sha256: sha256('b'), readAt: 2 });
    expect(cache.get('/w/c.txt')).toEqual({ sha256: sha256('text as a string'), readAt: 3 });
    expect(cache.get('/w/missing')).toBeUndefined();
  });

  it('the latest record of a path wins, and forget removes it whether hashed yet or not', () => {
    const cache = new MemoryReadCache();
    cache.recordContent('/w/a', 'one');
    cache.record('/w/a', sha256('two'));
    expect(cache.get('/w/a')?.sha256).toBe(sha256('two'));
    cache.record('/w/a', sha256('two'));
    cache.recordContent('/w/a', 'three');
    expect(cache.get('/w/a')?.sha256).toBe(sha256('three'));
    cache.recordContent('/w/a', 'four');
    cache.forget('/w/a');
    expect(cache.get('/w/a')).toBeUndefined();
  });

  it('many large reads (past the unhashed-bytes cap) all keep their right hashes', () => {
    const cache = new MemoryReadCache();
    const contents = Array.from({ length: 12 }, () => randomBytes(1024 * 1024));
    for (const [i, c] of contents.entries()) cache.recordContent(`/w/${i}`, c);
    for (const [i, c] of contents.entries()) expect(cache.get(`/w/${i}`)?.sha256).toBe(sha256(c));
  });

  it('behaves as a plain map of path to hash for any sequence of operations', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('content' as const),
        path: fc.constantFrom('a', 'b', 'c'),
        text: fc.string(),
      }),
      fc.record({
        kind: fc.constant('hash' as const),
        path: fc.constantFrom('a', 'b', 'c'),
        text: fc.string(),
      }),
      fc.record({ kind: fc.constant('forget' as const), path: fc.constantFrom('a', 'b', 'c') }),
      fc.record({ kind: fc.constant('get' as const), path: fc.constantFrom('a', 'b', 'c') }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const cache = new MemoryReadCache();
        const model = new Map<string, string>();
        for (const o of ops) {
          if (o.kind === 'content') {
            cache.recordContent(o.path, o.text);
            model.set(o.path, sha256(o.text));
          } else if (o.kind === 'hash') {
            cache.record(o.path, sha256(o.text));
            model.set(o.path, sha256(o.text));
          } else if (o.kind === 'forget') {
            cache.forget(o.path);
            model.delete(o.path);
          } else {
            expect(cache.get(o.path)?.sha256).toBe(model.get(o.path));
          }
        }
        for (const p of ['a', 'b', 'c']) expect(cache.get(p)?.sha256).toBe(model.get(p));
      }),
    );
  });

  it('a cache without recordContent (record only) still gets the hash of what was read', () => {
    const rows = new Map<string, ReadRecord>();
    const plain: ReadCache = {
      get: (p) => rows.get(p),
      record: (p, hash, at = 0) => void rows.set(p, { sha256: hash, readAt: at }),
      forget: (p) => void rows.delete(p),
    };
    const target = { input: 'a', absolute: '/w/a', root: '/w', relative: 'a' };
    const guard = new StaleGuard(plain);
    guard.remember(target, Buffer.from('seen'));
    expect(rows.get('/w/a')?.sha256).toBe(sha256('seen'));
    expect(() => guard.check(target, Buffer.from('seen'))).not.toThrow();
    expect(() => guard.check(target, Buffer.from('changed'))).toThrow(/changed since it was last read/);
  });
});
