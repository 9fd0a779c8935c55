import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { gateFor } from '../../../test/helpers/gate.js';
import { makeTempDir, useWorkspace } from '../../../test/helpers/workspace.js';
import { validateConfig } from '../../config/load-config.js';
import { approveAll } from '../../core/confirmation.js';
import { createToolgate } from '../../toolgate.js';
import { createGrepTool } from './grep.js';
import { ripgrepBinary } from './grep-ripgrep.js';

const engines = [
  ['ripgrep', false],
  ['javascript', true],
] as const;

function grepGate(root: string, forceJavaScript: boolean) {
  // The built-in grep is replaced to pin the engine; everything else is the real pipeline.
  const gate = createToolgate({ config: validateConfig({}), roots: [root], approver: approveAll });
  gate.registry.replace(createGrepTool({ forceJavaScript }));
  return async (args: Record<string, unknown>) => {
    const [r] = await gate.execute([{ id: '1', name: 'grep', arguments: args }]);
    if (!r) throw new Error('no result');
    return r;
  };
}

const matchLines = (content: string) => content.split('\n').filter((l) => /^[^\s].*:\d+: /.test(l));

describe('grep', () => {
  const ws = useWorkspace();

  it('the ripgrep binary from @vscode/ripgrep is present here', () => {
    expect(ripgrepBinary()).toBeDefined();
  });

  for (const [engine, js] of engines) {
    describe(`${engine} engine`, () => {
      it('Property 19: returns every matching line with its path and line number', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(
              fc.array(fc.constantFrom('foo', 'bar', 'baz qux', 'FOO', 'x'), { minLength: 1, maxLength: 6 }),
              { minLength: 1, maxLength: 4 },
            ),
            async (files) => {
              const root = makeTempDir('toolgate-grep-');
              try {
                for (const [i, lines] of files.entries())
                  writeFileSync(`${root}/f${i}.txt`, `${lines.join('\n')}\n`);
                const call = grepGate(root, js);
                const r = await call({ pattern: 'foo', case_sensitive: true, max_results: 1000 });
                const expected = files.flatMap((lines, i) =>
                  lines.flatMap((l, n) => (l.includes('foo') ? [`f${i}.txt:${n + 1}: ${l}`] : [])),
                );
                expect(matchLines(r.content).sort()).toEqual(expected.sort());
              } finally {
                rmSync(root, { recursive: true, force: true });
              }
            },
          ),
          { numRuns: 100 },
        );
      });

      it('Property 20: case_sensitive matches exact case only; without it, any case matches', async () => {
        const mixedCase = (word: string) =>
          fc
            .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
            .map((upper) => [...word].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));
        const word = fc.constantFrom('foo', 'bar', 'qux', 'x').chain(mixedCase);
        await fc.assert(
          fc.asyncProperty(
            fc.array(
              fc.array(
                fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(' ')),
                {
                  minLength: 1,
                  maxLength: 6,
                },
              ),
              { minLength: 1, maxLength: 3 },
            ),
            fc.constantFrom('foo', 'bar', 'qux').chain(mixedCase),
            async (files, pattern) => {
              const root = makeTempDir('toolgate-grep-case-');
              try {
                for (const [i, lines] of files.entries())
                  writeFileSync(`${root}/f${i}.txt`, `${lines.join('\n')}\n`);
                const call = grepGate(root, js);
                const expected = (matches: (line: string) => boolean) =>
                  files
                    .flatMap((lines, i) =>
                      lines.flatMap((l, n) => (matches(l) ? [`f${i}.txt:${n + 1}: ${l}`] : [])),
                    )
                    .sort();
                const exact = await call({ pattern, case_sensitive: true, max_results: 1000 });
                expect(matchLines(exact.content).sort()).toEqual(expected((l) => l.includes(pattern)));
                const anyCase = await call({ pattern, max_results: 1000 });
                expect(matchLines(anyCase.content).sort()).toEqual(
                  expected((l) => l.toLowerCase().includes(pattern.toLowerCase())),
                );
              } finally {
                rmSync(root, { recursive: true, force: true });
              }
            },
          ),
          { numRuns: 100 },
        );
      });

      it('Property 21: with include, only the files it matches are searched', async () => {
        const file = fc
          .tuple(
            fc.constantFrom('', 'sub/', 'sub/deep/'),
            fc.constantFrom('a', 'b', 'c'),
            fc.constantFrom('.ts', '.js', '.md', '.txt'),
          )
          .map(([dir, base, ext]) => `${dir}${base}${ext}`);
        await fc.assert(
          fc.asyncProperty(
            fc.uniqueArray(file, { minLength: 1, maxLength: 10 }),
            fc.constantFrom('*.ts', '*.{ts,js}', '*.md', 'a.*', '*', '[ab].*', '*.t?t'),
            async (files, include) => {
              const root = makeTempDir('toolgate-grep-include-');
              try {
                for (const f of files) {
                  mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
                  writeFileSync(path.join(root, f), `needle in ${f}\n`);
                }
                const r = await grepGate(root, js)({ pattern: 'needle', include, max_results: 1000 });
                // A glob without "/" is matched against the file name, at any depth (as ripgrep does).
                const isMatch = picomatch(include, { basename: true });
                const expected = files.filter((f) => isMatch(f)).map((f) => `${f}:1: needle in ${f}`);
                expect(matchLines(r.content).sort()).toEqual(expected.sort());
              } finally {
                rmSync(root, { recursive: true, force: true });
              }
            },
          ),
          { numRuns: 100 },
        );
      });

      it('Property 20 (example): case-insensitive by default, exact with case_sensitive', async () => {
        ws.file('c.txt', 'Hello\nhello\nHELLO\nbye\n');
        const call = grepGate(ws.dir(), js);
        expect(matchLines((await call({ pattern: 'hello' })).content)).toHaveLength(3);
        expect(matchLines((await call({ pattern: 'hello', case_sensitive: true })).content)).toEqual([
          'c.txt:2: hello',
        ]);
      });

      it('Property 21 (example): include limits the files searched', async () => {
        ws.file('a.ts', 'needle\n');
        ws.file('b.js', 'needle\n');
        ws.file('sub/c.ts', 'needle\n');
        const call = grepGate(ws.dir(), js);
        expect(matchLines((await call({ pattern: 'needle', include: '*.ts' })).content).sort()).toEqual([
          'a.ts:1: needle',
          'sub/c.ts:1: needle',
        ]);
      });

      it('.gitignore is respected; hidden and binary files are skipped (an example; Property 24: test/conformance/property-24-gitignore.test.ts)', async () => {
        ws.file('.gitignore', 'build/\n');
        ws.file('build/x.txt', 'needle\n');
        ws.file('.hidden.txt', 'needle\n');
        ws.file('bin.dat', Buffer.from('needle\0\u0001\u0002'));
        ws.file('ok.txt', 'needle\n');
        const call = grepGate(ws.dir(), js);
        expect(matchLines((await call({ pattern: 'needle' })).content)).toEqual(['ok.txt:1: needle']);
      });

      it('fixed strings, context lines, a path, and max_results', async () => {
        ws.file('s/a.txt', 'one\na.b\nthree\naxb\nfive\n');
        const call = grepGate(ws.dir(), js);
        expect(matchLines((await call({ pattern: 'a.b', fixed_strings: true })).content)).toEqual([
          's/a.txt:2: a.b',
        ]);
        expect((await call({ pattern: 'three', context: 1, path: 's' })).content).toBe(
          's/a.txt-2- a.b\ns/a.txt:3: three\ns/a.txt-4- axb',
        );
        expect((await call({ pattern: 'three', path: 's/a.txt' })).content).toBe('s/a.txt:3: three');
        const capped = await call({ pattern: '.', max_results: 2 });
        expect(matchLines(capped.content)).toHaveLength(2);
        expect(capped.content).toMatch(/more matches not shown/);
      });

      it('a bad regular expression is BadArgs with the reason', async () => {
        ws.file('a.txt', 'x\n');
        const r = await grepGate(ws.dir(), js)({ pattern: '(unclosed' });
        expect(r.error?.type).toBe('BadArgs');
        expect(r.content).toMatch(/unclosed|Unterminated/i);
      });

      it('leaves out files under denied patterns and never follows symlinks out', async () => {
        const outside = makeTempDir();
        writeFileSync(`${outside}/o.txt`, 'needle\n');
        symlinkSync(outside, `${ws.dir()}/out`);
        ws.file('k/server.pem', 'needle\n');
        ws.file('in.txt', 'needle\n');
        expect(matchLines((await grepGate(ws.dir(), js)({ pattern: 'needle' })).content)).toEqual([
          'in.txt:1: needle',
        ]);
      });
    });
  }

  it('the default pipeline grep uses ripgrep', async () => {
    ws.file('a.txt', 'x\n');
    const { gate } = gateFor(ws.dir());
    const [r] = await gate.execute([{ id: '1', name: 'grep', arguments: { pattern: 'x' } }]);
    expect(r?.metadata).toMatchObject({ engine: 'ripgrep' });
  });
});

describe('grep: which .gitignore rules apply is the same on both engines and in glob (issue #33 review)', () => {
  /**
   * Ripgrep on its own also reads .gitignore files above the directory it searches (up to /),
   * .ignore and .rgignore, and the global excludes file. A home directory's `*` .gitignore above
   * the workspace hid every match; a subfolder searched read its ancestors' rules from outside
   * the workspace too. Only the workspace's own .gitignore files count, on both engines.
   */
  for (const [engine, js] of engines) {
    it(`${engine}: a .gitignore above the workspace root, and .ignore/.rgignore files, hide nothing; the root's rules still apply to a subfolder`, async () => {
      const outside = makeTempDir('toolgate-grep-above-');
      writeFileSync(path.join(outside, '.gitignore'), '*\n!*/\n');
      const root = path.join(outside, 'ws');
      mkdirSync(path.join(root, 'src', 'deep'), { recursive: true });
      writeFileSync(path.join(root, '.gitignore'), '*.log\n');
      writeFileSync(path.join(root, 'src', '.ignore'), 'b.txt\n');
      writeFileSync(path.join(root, 'src', '.rgignore'), 'c.txt\n');
      for (const file of ['src/a.txt', 'src/b.txt', 'src/c.txt', 'src/x.log', 'src/deep/d.txt'])
        writeFileSync(path.join(root, file), 'needle\n');
      const grep = grepGate(root, js);
      const files = async (args: Record<string, unknown>) =>
        matchLines((await grep({ pattern: 'needle', ...args })).content)
          .map((l) => l.replace(/:1: needle$/, ''))
          .sort();
      const expected = ['src/a.txt', 'src/b.txt', 'src/c.txt', 'src/deep/d.txt'];
      expect(await files({})).toEqual(expected);
      expect(await files({ path: 'src' })).toEqual(expected);
      expect(await files({ path: 'src/deep' })).toEqual(['src/deep/d.txt']);
    });
  }
});

describe('grep on ripgrep reads no .gitignore itself (review of issue #33)', () => {
  it('a FIFO .gitignore does not stall it, a linked one is not read (git refuses it too), and git syntax ripgrep reads otherwise prunes nothing', async () => {
    const { execFileSync } = await import('node:child_process');
    const outside = makeTempDir('toolgate-grep-outside-');
    writeFileSync(path.join(outside, 'rules'), 'build/\n');
    const root = makeTempDir('toolgate-grep-hostile-');
    for (const dir of ['fifo/build', 'linked/build', 'braces/build', 'braces/dist', 'src'])
      mkdirSync(path.join(root, dir), { recursive: true });
    execFileSync('mkfifo', [path.join(root, 'fifo', '.gitignore')]);
    symlinkSync(path.join(outside, 'rules'), path.join(root, 'linked', '.gitignore'));
    // git has no braces: `{build,dist}/` names one folder called that, so build/ and dist/ stay
    writeFileSync(path.join(root, 'braces', '.gitignore'), '{build,dist}/\n');
    const files = [
      'fifo/build/a.txt',
      'linked/build/b.txt',
      'braces/build/c.txt',
      'braces/dist/d.txt',
      'src/e.txt',
    ];
    for (const file of files) writeFileSync(path.join(root, file), 'needle\n');
    const gate = createToolgate({
      roots: [root],
      builtins: false,
      tools: [createGrepTool({ timeoutMs: 20_000 })],
    });
    for (const where of ['.', 'braces']) {
      const [r] = await gate.execute([
        { id: 'g', name: 'grep', arguments: { pattern: 'needle', path: where } },
      ]);
      expect(r?.error, r?.content).toBeNull();
      const found = matchLines(r?.content ?? '')
        .map((l) => l.replace(/:1: needle$/, ''))
        .sort();
      expect(found).toEqual(where === '.' ? [...files].sort() : ['braces/build/c.txt', 'braces/dist/d.txt']);
    }
  });
});
