import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { AnyToolDefinition } from '../../src/core/tool-definition.js';
import { createToolgate } from '../../src/toolgate.js';
import { createGlobTool } from '../../src/tools/fs/glob.js';
import { createGrepTool } from '../../src/tools/fs/grep.js';
import { ripgrepBinary } from '../../src/tools/fs/grep-ripgrep.js';
import { createListDirectoryTool, type ListEntry } from '../../src/tools/fs/list-directory.js';
import { GIT_ENV } from '../helpers/git-env.js';
import { makeTempDir } from '../helpers/workspace.js';

/** Every tree and git directory made here, removed after the file. */
const made: string[] = [];

/**
 * Seed 001, Property 24 (issue #31 §4): for any file discovery (glob, grep, list_directory) in a
 * tree with .gitignore files, the files .gitignore excludes are not in the results, and every other
 * (visible) file is. Real git is the oracle: `git check-ignore` over every file of the generated
 * tree. Checked through both of toolgate's paths: ripgrep (glob lists with it and filters; grep
 * lets ripgrep apply the rules itself) and the JavaScript walkers (no ripgrep binary).
 */

/** Directory names, files and .gitignore lines chosen so that the rules overlap in many ways. */
// `build` at three depths with `!build/` among the lines: a deeper file re-including a folder an
// upper one excluded (the package's own test() let the upper rule win through the folder).
const DIRS = [
  '',
  'src',
  'src/lib',
  'src/lib/deep',
  'src/build',
  'src/lib/build',
  'build',
  'docs',
  'docs/build',
  'logs',
  'a b',
];
const FILES = ['a.log', 'keep.log', 'main.ts', 'notes.md', 'x1', 'Deep', 'deep', 'b.txt', 'c.txt', 'out'];
const LINES = [
  '*.log',
  '!keep.log',
  'build/',
  '/build',
  'build',
  '!build/',
  '!build',
  'deep/',
  '**/deep',
  'src/**/x1',
  'src/lib',
  '/src/lib/',
  'x*',
  '!x1',
  '[bc].txt',
  '!c.txt',
  '*.md',
  'docs/*',
  '!docs/build',
  'a b/',
  'out',
  '\\!important',
  '# comment',
  '',
  ' ',
  'main.ts ',
  'logs/**',
  '!logs/keep.log',
];

/**
 * The git directory lives outside the tree (`--git-dir`), so the tree is not a repository: the
 * tools must respect .gitignore there too (toolgate's own rule, ripgrep's --no-require-git).
 */
function gitIgnored(tree: string, files: string[]): Set<string> {
  const gitDir = mkdtempSync(path.join(tmpdir(), 'toolgate-p24-git-'));
  made.push(gitDir);
  execFileSync('git', ['init', '--quiet', '--bare', gitDir], { env: GIT_ENV });
  const git = (args: string[], input: string) => {
    try {
      return execFileSync('git', [`--git-dir=${gitDir}`, `--work-tree=${tree}`, ...args], {
        cwd: tree,
        env: GIT_ENV,
        input,
        encoding: 'utf8',
      });
    } catch (error) {
      // check-ignore exits 1 when nothing is ignored: its output is still the answer.
      const e = error as { status?: number; stdout?: string };
      if (e.status === 1 && typeof e.stdout === 'string') return e.stdout;
      throw error;
    }
  };
  const out = git(['-c', 'core.bare=false', 'check-ignore', '--no-index', '-z', '--stdin'], files.join('\0'));
  const ignored = new Set(out.split('\0').filter(Boolean));
  // check-ignore answers per path; git's own listing of what it would add must agree with it
  // (a file under an excluded directory stays excluded whatever a later "!" line says).
  const listed = git(['-c', 'core.bare=false', 'ls-files', '--others', '--exclude-standard', '-z'], '');
  const shown = new Set(listed.split('\0').filter(Boolean));
  for (const file of files)
    expect(shown.has(file), `git ls-files vs check-ignore on ${file}`).toBe(!ignored.has(file));
  return ignored;
}

afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Tree {
  files: string[];
  gitignores: [dir: string, lines: string[]][];
}

const tree: fc.Arbitrary<Tree> = fc.record({
  files: fc.uniqueArray(
    fc
      .tuple(fc.constantFrom(...DIRS), fc.constantFrom(...FILES))
      .map(([d, f]) => (d ? `${d}/${f}` : f))
      .filter((file) => !DIRS.includes(file)), // a file where a directory goes (src/lib + deep)
    { minLength: 1, maxLength: 25 },
  ),
  gitignores: fc.uniqueArray(
    fc.tuple(fc.constantFrom(...DIRS), fc.array(fc.constantFrom(...LINES), { maxLength: 5 })),
    { maxLength: 4, selector: ([dir]) => dir },
  ),
});

function write(root: string, t: Tree): void {
  for (const file of t.files) {
    mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
    writeFileSync(path.join(root, file), 'needle\n');
  }
  for (const [dir, lines] of t.gitignores) {
    mkdirSync(path.join(root, dir), { recursive: true });
    writeFileSync(path.join(root, dir, '.gitignore'), `${lines.join('\n')}\n`);
  }
}

function filesOf(entries: ListEntry[], prefix: string): string[] {
  return entries.flatMap((e) => {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.type === 'directory') return filesOf(e.children ?? [], rel);
    return e.type === 'file' ? [rel] : [];
  });
}

type Gate = ReturnType<typeof createToolgate>;

async function run(gate: Gate, name: string, args: Record<string, unknown>): Promise<string> {
  const [result] = await gate.execute([{ id: `${name}-1`, name, arguments: args }]);
  if (!result) throw new Error('no result');
  expect(result.error, `${name}: ${result.content}`).toBeNull();
  return result.content;
}

/** What each discovery tool finds in the whole tree: glob's paths, grep's matching files, the listing's files. */
async function discovered(gate: Gate, withList: boolean): Promise<Record<string, string[]>> {
  const globbed = await run(gate, 'glob', { pattern: '**/*', max_results: 1000 });
  const grepped = await run(gate, 'grep', { pattern: 'needle', max_results: 1000 });
  const found: Record<string, string[]> = {
    glob: globbed.startsWith('No files match') ? [] : globbed.split('\n'),
    grep: grepped.startsWith('No matches')
      ? []
      : [...new Set(grepped.split('\n').map((line) => line.replace(/:1: needle$/, '')))],
  };
  if (withList) {
    const listing = JSON.parse(await run(gate, 'list_directory', { path: '.', depth: 10 })) as {
      entries: ListEntry[];
    };
    found.list_directory = filesOf(listing.entries, '');
  }
  for (const key of Object.keys(found)) found[key]?.sort();
  return found;
}

function gateWith(root: string, tools: AnyToolDefinition[]): Gate {
  return createToolgate({ roots: [root], builtins: false, tools });
}

describe('Property 24: file discovery respects .gitignore, as git decides it', () => {
  it('glob, grep and list_directory, through ripgrep and through the JavaScript walkers', async () => {
    // The ripgrep path must really run here (its binary ships with @vscode/ripgrep).
    expect(ripgrepBinary()).toBeDefined();
    await fc.assert(
      fc.asyncProperty(tree, async (t) => {
        const root = makeTempDir('toolgate-p24-tree-');
        made.push(root);
        write(root, t);
        const ignored = gitIgnored(root, t.files);
        const expected = t.files.filter((f) => !ignored.has(f)).sort();
        const ripgrep = gateWith(root, [createGlobTool(), createGrepTool()]);
        const javascript = gateWith(root, [
          createGlobTool({ forceJavaScript: true }),
          createGrepTool({ forceJavaScript: true }),
          createListDirectoryTool(),
        ]);
        const byRipgrep = await discovered(ripgrep, false);
        const byJavaScript = await discovered(javascript, true);
        const context = `tree ${JSON.stringify(t)}; git ignores ${JSON.stringify([...ignored])}`;
        expect({ ripgrep: byRipgrep, javascript: byJavaScript }, context).toEqual({
          ripgrep: { glob: expected, grep: expected },
          javascript: { glob: expected, grep: expected, list_directory: expected },
        });
      }),
      {
        numRuns: 150,
        // Always tried: a deeper `!build/` re-including folders the root's `build/` excluded.
        examples: [
          [
            {
              files: ['src/build/main.ts', 'src/lib/build/x1', 'build/b.txt', 'src/main.ts'],
              gitignores: [
                ['', ['build/']],
                ['src', ['!build/']],
              ],
            },
          ],
        ],
      },
    );
  });
});
