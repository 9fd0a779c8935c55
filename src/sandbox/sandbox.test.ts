import { lstatSync, mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeTempDir, useWorkspace } from '../../test/helpers/workspace.js';
import { ToolError } from '../core/tool-error.js';
import { Sandbox } from './sandbox.js';

function violationOf(fn: () => unknown): ToolError {
  try {
    fn();
  } catch (error) {
    if (ToolError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a violation');
}

describe('Sandbox.resolve (FR-VAL-04)', () => {
  const ws = useWorkspace();
  const box = (extra: Partial<ConstructorParameters<typeof Sandbox>[0]> = {}) =>
    new Sandbox({ roots: [ws.dir()], ...extra });

  it('T-SBX-01: rejects ".." traversal in every spelling', () => {
    const sandbox = box();
    for (const p of [
      '..',
      '../x',
      'a/../../x',
      'a/..',
      './..',
      'a\\..\\..\\x',
      '..\\x',
      'a/b/../../../etc/passwd',
    ]) {
      expect(violationOf(() => sandbox.resolve(p)).type).toBe('SandboxViolation');
    }
  });

  it('T-SBX-02: rejects absolute paths unless allow_absolute', () => {
    const f = ws.file('a.txt', 'x');
    expect(violationOf(() => box().resolve(f)).message).toMatch(/absolute path/);
    expect(violationOf(() => box().resolve('/etc/passwd')).type).toBe('SandboxViolation');
    expect(box({ allowAbsolute: true }).resolve(f).relative).toBe('a.txt');
    // allowed absolute paths must still be inside a root
    expect(violationOf(() => box({ allowAbsolute: true }).resolve('/etc/passwd')).message).toMatch(/outside/);
  });

  it('T-SBX-03: denied patterns match the canonical path, also through a symlink alias', () => {
    ws.file('keys/server.pem', 'k');
    ws.file('.ssh/id_ed25519', 'k');
    symlinkSync('keys', path.join(ws.dir(), 'alias'));
    const sandbox = box({ deniedPatterns: ['secret/**'] });
    ws.file('secret/x', 's');
    for (const p of [
      'keys/server.pem',
      'alias/server.pem',
      '.ssh/id_ed25519',
      '.ssh',
      'secret/x',
      'secret',
      './secret/x',
      'secret//x',
    ]) {
      expect(violationOf(() => sandbox.resolve(p)).message).toMatch(/denied by the pattern/);
    }
  });

  it('always denies toolgate.toml and .toolgate/, even with default denies off', () => {
    const sandbox = box({ includeDefaultDenies: false });
    for (const p of ['toolgate.toml', 'sub/toolgate.toml', '.toolgate', '.toolgate/journal.db']) {
      expect(violationOf(() => sandbox.resolve(p)).type).toBe('SandboxViolation');
    }
    expect(sandbox.resolve('a.pem').relative).toBe('a.pem');
  });

  it('denies exact extra files (the config in use under another name)', () => {
    const cfg = ws.file('my-policy.toml', '');
    expect(violationOf(() => box({ deniedFiles: [cfg] }).resolve('my-policy.toml')).message).toMatch(
      /toolgate's own/,
    );
  });

  it('a sibling whose name starts with the root name is outside', () => {
    const parent = makeTempDir();
    mkdirSync(path.join(parent, 'root'));
    mkdirSync(path.join(parent, 'root-evil'));
    const sandbox = new Sandbox({ roots: [path.join(parent, 'root')], allowAbsolute: true });
    expect(violationOf(() => sandbox.resolve(path.join(parent, 'root-evil', 'x'))).message).toMatch(
      /outside/,
    );
    expect(violationOf(() => sandbox.resolve(`${path.join(parent, 'root')}evil`)).message).toMatch(/outside/);
    expect(sandbox.resolve(path.join(parent, 'root', 'x')).relative).toBe('x');
  });

  it('refuses NUL bytes and takes every other character literally (no decoding, no trimming, no ~)', () => {
    const sandbox = box();
    expect(violationOf(() => sandbox.resolve('a\0b')).message).toMatch(/NUL/);
    expect(sandbox.resolve('%2e%2e/x').relative).toBe('%2e%2e/x');
    expect(sandbox.resolve('~/x').relative).toBe('~/x');
    expect(sandbox.resolve(' a ').relative).toBe(' a ');
    expect(sandbox.resolve('file:///etc/passwd').relative).toBe('file:/etc/passwd');
  });

  it('resolves a symlink to its target and refuses one that points outside', () => {
    const outside = makeTempDir();
    ws.file('real/a.txt', 'x');
    symlinkSync(path.join(ws.dir(), 'real'), path.join(ws.dir(), 'inlink'));
    symlinkSync(outside, path.join(ws.dir(), 'outlink'));
    const sandbox = box();
    expect(sandbox.resolve('inlink/a.txt').relative).toBe('real/a.txt');
    expect(violationOf(() => sandbox.resolve('outlink/new.txt')).message).toMatch(/outside/);
    expect(violationOf(() => sandbox.resolve('outlink')).message).toMatch(/outside/);
  });

  it('refuses dangling and looping symlinks', () => {
    symlinkSync(path.join(makeTempDir(), 'missing'), path.join(ws.dir(), 'dangling'));
    symlinkSync('loop2', path.join(ws.dir(), 'loop1'));
    symlinkSync('loop1', path.join(ws.dir(), 'loop2'));
    const sandbox = box();
    expect(violationOf(() => sandbox.resolve('dangling')).message).toMatch(/does not exist/);
    expect(violationOf(() => sandbox.resolve('loop1')).type).toBe('SandboxViolation');
    expect(violationOf(() => sandbox.resolve('loop1/x')).type).toBe('SandboxViolation');
  });

  it('a new file under a missing directory resolves under the canonical ancestor', () => {
    expect(box().resolve('new/dir/f.txt')).toMatchObject({
      relative: 'new/dir/f.txt',
      absolute: path.join(ws.dir(), 'new/dir/f.txt'),
    });
  });

  it('whatever the input, a resolved path is inside a root (property)', () => {
    const outside = makeTempDir();
    ws.file('d/f', 'x');
    symlinkSync(outside, path.join(ws.dir(), 'out'));
    const sandbox = box({ allowAbsolute: true });
    const segment = fc.constantFrom(
      '..',
      '.',
      'd',
      'f',
      'out',
      '',
      'x',
      '%2e%2e',
      '~',
      '\\..',
      outside,
      '/etc',
    );
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), (parts) => {
        const input = parts.join('/');
        try {
          const resolved = sandbox.resolve(input);
          expect(resolved.absolute === ws.dir() || resolved.absolute.startsWith(`${ws.dir()}/`)).toBe(true);
        } catch (error) {
          expect(ToolError.isInstance(error)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('canonical paths are what realpath of the deepest existing ancestor gives, through every kind of link (property)', () => {
    const outside = makeTempDir();
    ws.file('a/b/f.txt', 'x');
    ws.file('f', 'x');
    const at = (name: string) => path.join(ws.dir(), name);
    symlinkSync(at('a'), at('la')); // absolute link to a directory inside
    symlinkSync('a/b', at('lb')); // relative link two levels down
    symlinkSync('f', at('lf')); // link to a file
    symlinkSync('..', at('a/up')); // back up to the root
    symlinkSync(outside, at('out'));
    symlinkSync(at('missing'), at('dangling'));
    symlinkSync(at('loop2'), at('loop1'));
    symlinkSync(at('loop1'), at('loop2'));
    symlinkSync('lb', at('chain')); // a link to a link
    const root = ws.dir();
    /** The definition (FR-VAL-04 steps 4-6) written out with realpath. */
    const reference = (input: string): string => {
      const pending: string[] = [];
      let current = path.resolve(root, input);
      for (;;) {
        try {
          const real = realpathSync.native(current);
          const absolute = pending.length ? path.join(real, ...pending.reverse()) : real;
          return absolute === root || absolute.startsWith(`${root}/`) ? absolute : 'refused';
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== 'ENOENT' && code !== 'ENOTDIR') return 'refused';
          if (code === 'ENOENT' && lstatSync(current, { throwIfNoEntry: false })?.isSymbolicLink())
            return 'refused';
          pending.push(path.basename(current));
          current = path.dirname(current);
        }
      }
    };
    const sandbox = box({ includeDefaultDenies: false });
    const segment = fc.constantFrom(
      'a',
      'b',
      'f',
      'f.txt',
      'la',
      'lb',
      'lf',
      'up',
      'out',
      'dangling',
      'loop1',
      'chain',
      'new',
    );
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), (parts) => {
        const input = parts.join('/');
        let actual: string;
        try {
          actual = sandbox.resolve(input).absolute;
        } catch (error) {
          expect((error as ToolError).type).toBe('SandboxViolation');
          actual = 'refused';
        }
        expect(actual, input).toBe(reference(input));
      }),
      { numRuns: 2000 },
    );
  });

  it('display shows paths relative to the root', () => {
    const sandbox = box();
    expect(sandbox.display(path.join(ws.dir(), 'a', 'b'))).toBe('a/b');
    expect(sandbox.display(ws.dir())).toBe('.');
  });

  it('a root that does not exist is refused at construction', () => {
    expect(() => new Sandbox({ roots: [path.join(ws.dir(), 'missing')] })).toThrow(/does not exist/);
  });
});

describe('Sandbox denied patterns on absolute paths', () => {
  it('a root inside a denied area denies everything in it', () => {
    const parent = makeTempDir();
    mkdirSync(path.join(parent, '.ssh'));
    const sandbox = new Sandbox({ roots: [path.join(parent, '.ssh')] });
    expect(() => sandbox.resolve('known_hosts')).toThrow(/denied by the pattern/);
  });

  it('absolute patterns apply to the canonical absolute path', () => {
    const root = makeTempDir();
    const sandbox = new Sandbox({ roots: [root], deniedPatterns: [`${root}/private/**`] });
    expect(() => sandbox.resolve('private/a')).toThrow(/denied by the pattern/);
    expect(sandbox.resolve('public/a').relative).toBe('public/a');
  });
});
