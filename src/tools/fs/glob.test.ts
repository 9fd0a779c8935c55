import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { gateFor } from '../../../test/helpers/gate.js';
import { makeTempDir, useWorkspace } from '../../../test/helpers/workspace.js';

const segment = fc.constantFrom('a', 'b', 'src', 'lib', '.hid');
const fileName = fc.constantFrom('x.ts', 'y.js', 'z.md', '.env', 'readme.txt');

/** A fresh root holding these (empty) files; the caller removes it. */
function build(files: readonly string[]): string {
  const root = makeTempDir('toolgate-glob-');
  for (const f of files) {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    writeFileSync(path.join(root, f), '');
  }
  return root;
}

describe('glob', () => {
  const ws = useWorkspace();
  const lines = (content: string) =>
    content.startsWith('No files match') ? [] : content.split('\n').filter((l) => !l.startsWith('['));

  it('Property 16: returns all and only the files matching the pattern (sorted, relative to the root)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc.tuple(fc.array(segment, { maxLength: 3 }), fileName).map(([d, f]) => [...d, f].join('/')),
          { minLength: 1, maxLength: 12 },
        ),
        fc.constantFrom('**/*.ts', '*.md', 'src/**/*', '**/x.*', '{a,b}/**/*.js'),
        async (files, pattern) => {
          const root = build(files);
          try {
            const { call } = gateFor(root);
            const r = await call('glob', { pattern, max_results: 1000 });
            const isMatch = picomatch(pattern, { dot: false });
            const expected = files.filter((f) => isMatch(f)).sort();
            expect(lines(r.content)).toEqual(expected);
          } finally {
            rmSync(root, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('Property 17: never more than max_results, with a clear "N more not shown" line', async () => {
    for (let i = 0; i < 30; i++) ws.file(`f${String(i).padStart(2, '0')}.txt`, '');
    const { call } = gateFor(ws.dir());
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), async (max) => {
        const r = await call('glob', { pattern: '*.txt', max_results: max });
        const shown = lines(r.content);
        expect(shown.length).toBe(Math.min(max, 30));
        if (max < 30) expect(r.content).toContain(`[${30 - max} more not shown`);
      }),
      { numRuns: 100 },
    );
  });

  it('Property 18: hidden files and directories are left out, and with include_hidden all of them are in', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc
            .tuple(fc.array(fc.constantFrom('a', 'b', '.h', '.cfg'), { maxLength: 3 }), fileName)
            .map(([d, f]) => [...d, f].join('/')),
          { minLength: 1, maxLength: 12 },
        ),
        fc.constantFrom('**/*', '**/*.ts', '*', '*/*', '**/.*'),
        async (files, pattern) => {
          const root = build(files);
          try {
            const { call } = gateFor(root);
            const hidden = (f: string) => f.split('/').some((part) => part.startsWith('.'));
            const without = lines((await call('glob', { pattern, max_results: 1000 })).content);
            // A pattern that names dot files itself (`**/.*`) matches them, as in every glob (and
            // picomatch); any other pattern never reaches a hidden file or directory.
            if (!pattern.includes('.*')) expect(without.filter(hidden)).toEqual([]);
            expect(without).toEqual(files.filter((f) => picomatch(pattern, { dot: false })(f)).sort());
            const withHidden = lines(
              (await call('glob', { pattern, max_results: 1000, include_hidden: true })).content,
            );
            expect(withHidden).toEqual(files.filter((f) => picomatch(pattern, { dot: true })(f)).sort());
            // include_hidden only adds, and all it adds is hidden.
            expect(without.filter((f) => !withHidden.includes(f))).toEqual([]);
            expect(withHidden.filter((f) => !without.includes(f) && !hidden(f))).toEqual([]);
          } finally {
            rmSync(root, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('Property 18 (example): hidden files only with include_hidden', async () => {
    ws.file('.hidden/a.ts', '');
    ws.file('.b.ts', '');
    ws.file('c.ts', '');
    const { call } = gateFor(ws.dir());
    expect(lines((await call('glob', { pattern: '**/*.ts' })).content)).toEqual(['c.ts']);
    expect(lines((await call('glob', { pattern: '**/*.ts', include_hidden: true })).content)).toEqual([
      '.b.ts',
      '.hidden/a.ts',
      'c.ts',
    ]);
  });

  it('.gitignore (nested files too) is respected (an example; Property 24 is stated over generated trees in test/conformance/property-24-gitignore.test.ts)', async () => {
    ws.file('.gitignore', 'dist/\n*.log\n!keep.log\n');
    ws.file('dist/out.js', '');
    ws.file('a.log', '');
    ws.file('keep.log', '');
    ws.file('pkg/.gitignore', 'gen/\n');
    ws.file('pkg/gen/g.js', '');
    ws.file('pkg/src/s.js', '');
    const { call } = gateFor(ws.dir());
    expect(lines((await call('glob', { pattern: '**/*' })).content)).toEqual(['keep.log', 'pkg/src/s.js']);
    expect(lines((await call('glob', { pattern: '**/*.js', path: 'pkg' })).content)).toEqual([
      'pkg/src/s.js',
    ]);
  });

  it('never follows symlinks out of the root, and leaves out denied files', async () => {
    const outside = makeTempDir();
    ws.file('in.txt', '');
    ws.file('keys/server.pem', '');
    writeFileSync(path.join(outside, 'secret.txt'), 's');
    symlinkSync(outside, path.join(ws.dir(), 'out'));
    const { call } = gateFor(ws.dir());
    expect(lines((await call('glob', { pattern: '**/*' })).content)).toEqual(['in.txt']);
  });

  it('refuses patterns that leave the search directory', async () => {
    const { call } = gateFor(ws.dir());
    for (const pattern of ['../*', '/etc/*', 'a/../../x']) {
      expect((await call('glob', { pattern })).error?.type).toBe('SandboxViolation');
    }
  });
});

describe('glob in an ignored directory named explicitly', () => {
  const ws = useWorkspace();
  it('searches it (as ripgrep does), still honouring rules below it', async () => {
    ws.file('.gitignore', 'vendor/\n*.tmp\n');
    ws.file('vendor/lib/a.js', '');
    ws.file('vendor/lib/b.tmp', '');
    ws.file('vendor/.gitignore', 'lib/skip/\n');
    ws.file('vendor/lib/skip/c.js', '');
    const { call } = gateFor(ws.dir());
    expect((await call('glob', { pattern: '**/*' })).content).toMatch(/^No files match/);
    expect((await call('glob', { pattern: '**/*', path: 'vendor' })).content).toBe('vendor/lib/a.js');
  });
});
