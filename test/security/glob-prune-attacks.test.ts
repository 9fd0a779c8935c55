import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createToolgate } from '../../src/toolgate.js';
import { createGlobTool } from '../../src/tools/fs/glob.js';
import { ripgrepBinary } from '../../src/tools/fs/grep-ripgrep.js';
import { GIT_ENV } from '../helpers/git-env.js';
import { globGates } from '../helpers/glob-gates.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue #33: glob's ripgrep walk prunes ignored folders (.gitignore files at and below the searched
 * folder read by ripgrep, the any-depth rules above it sent as an ignore file). Attacked from
 * outside through createToolgate: for each tree, glob through ripgrep must answer exactly what the
 * JavaScript walker answers, and (for visible files) what git lists; nothing denied is listed and
 * nothing is left behind.
 */

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tree(files: Record<string, string | Buffer>): string {
  const root = makeTempDir('toolgate-prune-attack-');
  made.push(root);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
  return root;
}

/** The visible files (no dot segment) under `base` that git would add: the oracle. */
function gitVisible(root: string, base = '.', env: NodeJS.ProcessEnv = GIT_ENV): string[] {
  const gitDir = mkdtempSync(path.join(tmpdir(), 'toolgate-prune-git-'));
  made.push(gitDir);
  execFileSync('git', ['init', '--quiet', '--bare', gitDir], { env });
  const listed = execFileSync(
    'git',
    [
      `--git-dir=${gitDir}`,
      `--work-tree=${root}`,
      '-c',
      'core.bare=false',
      'ls-files',
      '--others',
      '--exclude-standard',
      '-z',
      '--',
      base,
    ],
    { cwd: root, env, encoding: 'utf8' },
  );
  return listed
    .split('\0')
    .filter((f) => f !== '' && !f.split('/').some((s) => s.startsWith('.')))
    .sort();
}

/** glob's answer through each engine, as lists of paths. */
async function globBoth(root: string, args: Record<string, unknown>): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [engine, gate] of Object.entries(globGates(root))) {
    const [r] = await gate.execute([{ id: 'g', name: 'glob', arguments: { max_results: 10_000, ...args } }]);
    expect(r?.error, `${engine}: ${r?.content}`).toBeNull();
    const content = r?.content ?? '';
    out[engine] = content.startsWith('No files match') ? [] : content.split('\n');
  }
  return out;
}

/** Both engines answer `args` with `expected`. */
async function expectBoth(root: string, args: Record<string, unknown>, expected: string[], label?: string) {
  expect(await globBoth(root, args), label).toEqual({ ripgrep: expected, javascript: expected });
}

/**
 * A pattern that matches no folder name here: ripgrep's pattern is an override, and an override that
 * matches a folder (as `**\/*` does) wins over the ignore rules, so nothing would be pruned.
 */
const FILES_WITH_DOT = '**/*.*';

/** Both engines answer FILES_WITH_DOT from `base` exactly as git lists the visible files there. */
async function expectAsGit(root: string, base = '.'): Promise<void> {
  const expected = gitVisible(root, base).filter((f) => /\.[^/]*$/.test(f));
  await expectBoth(root, { pattern: FILES_WITH_DOT, path: base }, expected);
}

describe('glob pruning under attack (issue #33)', () => {
  it('ripgrep is there to attack', () => {
    expect(ripgrepBinary()).toBeDefined();
  });

  it('.ignore, .rgignore and .git/info/exclude do not prune: git honours none of them in a tree', async () => {
    const root = tree({
      '.ignore': 'a/\n',
      '.rgignore': 'b/\n',
      'sub/.ignore': '*.ts\n',
      '.git/info/exclude': 'c/\n',
      'a/x.ts': '',
      'b/x.ts': '',
      'c/x.ts': '',
      'sub/y.ts': '',
    });
    await expectBoth(root, { pattern: '**/*.ts' }, ['a/x.ts', 'b/x.ts', 'c/x.ts', 'sub/y.ts']);
  });

  it("the person's global excludes (core.excludesFile, $XDG_CONFIG_HOME/git/ignore) are not honoured by either engine", async () => {
    // Git honours them; glob answers by the tree's own .gitignore files alone, on both engines.
    const home = tree({
      '.gitconfig': '[core]\n\texcludesFile = ~/global-ignore\n',
      'global-ignore': 'one/\n',
      'xdg/git/ignore': 'two/\n',
    });
    const root = tree({ 'one/a.ts': '', 'two/b.ts': '', 'c.ts': '' });
    const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
    process.env.HOME = home;
    process.env.XDG_CONFIG_HOME = path.join(home, 'xdg');
    try {
      await expectBoth(root, { pattern: FILES_WITH_DOT }, ['c.ts', 'one/a.ts', 'two/b.ts']);
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
    // What git itself does with that home: core.excludesFile wins over the XDG file.
    const withHome = { ...GIT_ENV, HOME: home, GIT_CONFIG_GLOBAL: path.join(home, '.gitconfig') };
    expect(gitVisible(root, '.', withHome)).toEqual(['c.ts', 'two/b.ts']);
  });

  it.each([
    [
      'trailing spaces and an escaped one',
      'tmp   \nfoo\\ \n',
      ['sub/tmp/a.ts', 'sub/foo /a.ts', 'sub/foo/a.ts', 'sub/k.ts'],
    ],
    ['CRLF line ends', 'gen/\r\ncache/\r\n', ['sub/gen/a.ts', 'sub/cache/a.ts', 'sub/k.ts']],
    [
      'leading **/ and a trailing /**',
      '**/tmp\nlogs/**\n',
      ['sub/tmp/a.ts', 'sub/logs/a.ts', 'sub/z/tmp', 'sub/k.ts'],
    ],
    [
      'anchored lines (never sent to ripgrep)',
      '/sub/build/\nsub/x/\n',
      ['sub/build/a.ts', 'sub/x/a.ts', 'sub/y/build/a.ts'],
    ],
    ['a POSIX class in an exclusion', 'x[[:digit:]]/\n', ['sub/x1/a.ts', 'sub/xa/a.ts', 'sub/k.ts']],
  ])('rules from above with %s prune as git does from the folder searched', async (_, rules, files) => {
    const root = tree({ '.gitignore': rules, ...Object.fromEntries(files.map((f) => [f, ''])) });
    await expectAsGit(root, 'sub');
  });

  it('a folder searched although an ancestor ignores it: only the lines naming it are dropped', async () => {
    // Git would list nothing here; toolgate searches a folder named explicitly (as ripgrep does),
    // and the other lines from above (`*.log`, `build/`) still prune inside it, on both engines.
    const root = tree({
      '.gitignore': 'node_modules/\n*.log\nbuild/\n',
      'node_modules/pkg/a.ts': '',
      'node_modules/pkg/b.log': '',
      'node_modules/pkg/build/c.ts': '',
      'node_modules/pkg/node_modules/d.ts': '',
    });
    expect(gitVisible(root, 'node_modules/pkg')).toEqual([]);
    const expected = ['node_modules/pkg/a.ts', 'node_modules/pkg/node_modules/d.ts'];
    await expectBoth(root, { pattern: FILES_WITH_DOT, path: 'node_modules/pkg' }, expected);
  });

  it('a .git folder (a nested repository) stops ripgrep reading the rules above it, never more', async () => {
    // Ripgrep, as for .jj, reads no .gitignore above a folder holding .git: fewer rules, less pruned;
    // the filter still leaves out what the root's rules ignore.
    const root = tree({
      '.gitignore': 'build/\n*.log\n',
      'sub/.git/HEAD': 'ref: refs/heads/main\n',
      'sub/.gitignore': '!keep.log\n',
      'sub/build/a.ts': '',
      'sub/deep/build/b.ts': '',
      'sub/x.log': '',
      'sub/keep.log': '',
      'sub/c.ts': '',
    });
    const expected = ['sub/c.ts', 'sub/keep.log'];
    for (const base of ['.', 'sub', 'sub/deep']) {
      const want = expected.filter((f) => f.startsWith(base === '.' ? '' : `${base}/`));
      await expectBoth(root, { pattern: FILES_WITH_DOT, path: base }, want, base);
    }
  });

  it('a name that is not UTF-8 is listed alike by both engines, and a denied one stays out', async () => {
    const root = tree({ 'ok.ts': '' });
    writeFileSync(Buffer.concat([Buffer.from(`${root}/bad`), Buffer.from([0xff]), Buffer.from('.ts')]), '');
    writeFileSync(
      Buffer.concat([Buffer.from(`${root}/server`), Buffer.from([0xc3]), Buffer.from('.pem')]),
      '',
    );
    const found = await globBoth(root, { pattern: '**/*' });
    expect(found.ripgrep).toEqual(found.javascript);
    expect(found.ripgrep).toEqual(['bad\uFFFD.ts', 'ok.ts']);
  });

  it('the rules sent on stdin leave no file behind, however many walks send them', async () => {
    const leftovers = () => readdirSync(tmpdir()).filter((n) => n.startsWith('toolgate-text-'));
    const before = leftovers();
    const root = tree({
      '.gitignore': 'build/\n',
      'sub/build/a.ts': '',
      'sub/b.ts': '',
      'sub/.gitignore': '!x\n',
    });
    // With a '!' below, the walk with rules from above runs again without them: two walks.
    for (let i = 0; i < 3; i++) await expectAsGit(root, 'sub');
    expect(leftovers()).toEqual(before);
  });
});

/**
 * The attacks that succeeded while ripgrep read the tree's .gitignore files itself (helper review,
 * issue #33): its syntax is not git's, it followed a linked .gitignore (out of the root too), it
 * blocked on a FIFO, and names were split at line breaks. Ripgrep now reads none of them; only rules
 * toolgate read, in words both read alike, prune.
 */
describe('glob pruning: attacks that succeeded before ripgrep stopped reading .gitignore files (issue #33)', () => {
  it.each([
    [
      'braces (git has none: `{build,dist}` is a literal name)',
      '{build,dist}/\n',
      ['build/a.ts', 'dist/a.ts', 'k.ts'],
    ],
    ['braces with one branch', '{xa}/\n', ['xa/a.ts', 'k.ts']],
    ['a backslash inside a class', 'x[a\\-z]/\n', ['xb/a.ts', 'x]/a.ts', 'x-/a.ts', 'k.ts']],
    ['an escaped bracket inside a class', 'x[\\[]/\n', ['x\\/a.ts', 'x[/a.ts', 'k.ts']],
    ['a trailing backslash', 'xa\\/\n', ['xa/a.ts', 'k.ts']],
    ['a re-include with a POSIX class', 'x*/\n!x[[:digit:]]/\n', ['x1/a.ts', 'xa/a.ts']],
    ['a re-include with ***', 'x*/\n!***/x1/\n', ['x1/a.ts', 'xa/a.ts']],
    ['a re-include with an escaped ] in a class', 'x*/\n!x[\\]]/\n', ['x]/a.ts', 'xa/a.ts']],
    ['a re-include with an unclosed brace', 'x*/\n!x{a/\n', ['x{a/a.ts', 'xa/a.ts']],
  ])(
    'a .gitignore line ripgrep reads otherwise than git (%s) prunes nothing git keeps',
    async (_, rules, files) => {
      const root = tree({
        'sub/.gitignore': rules,
        ...Object.fromEntries(files.map((f) => [`sub/${f}`, ''])),
      });
      await expectAsGit(root);
      await expectAsGit(root, 'sub');
    },
  );

  it('rules from above with braces prune nothing git keeps', async () => {
    const root = tree({
      '.gitignore': '{build,dist}/\n',
      'sub/build/a.ts': '',
      'sub/dist/b.ts': '',
      'sub/c.ts': '',
    });
    await expectAsGit(root, 'sub');
    await expectAsGit(root);
  });

  it('a .gitignore that is a link is not read (git refuses it too), wherever it leads', async () => {
    const outside = tree({ rules: 'build/\n' });
    const root = tree({ 'real-rules': 'build/\n', 'build/a.ts': '', 'sub/build/b.ts': '', 'sub/c.ts': '' });
    symlinkSync('real-rules', path.join(root, '.gitignore'));
    symlinkSync(path.join(outside, 'rules'), path.join(root, 'sub/.gitignore'));
    const expected = ['build/a.ts', 'sub/build/b.ts', 'sub/c.ts'];
    expect(gitVisible(root).filter((f) => f.endsWith('.ts'))).toEqual(expected);
    await expectBoth(root, { pattern: '**/*.*' }, expected);
  });

  it('a .gitignore that is a FIFO does not stall the walk', async () => {
    const root = tree({ 'build/a.ts': '', 'b.ts': '' });
    execFileSync('mkfifo', [path.join(root, '.gitignore')]);
    const gate = createToolgate({
      roots: [root],
      builtins: false,
      tools: [createGlobTool({ timeoutMs: 20_000 })],
    });
    const [r] = await gate.execute([{ id: 'g', name: 'glob', arguments: { pattern: '**/*' } }]);
    expect(r?.error, r?.content).toBeNull();
    expect(r?.content).toBe('b.ts\nbuild/a.ts');
  });

  it("a .gitignore over the filter's 1 MiB cap: both engines answer alike", async () => {
    const root = tree({
      '.gitignore': `build/\n${'# filler\n'.repeat(150_000)}`,
      'build/a.ts': '',
      'b.ts': '',
    });
    const found = await globBoth(root, { pattern: '**/*.*' });
    expect(found.ripgrep).toEqual(found.javascript);
  });

  it('a name with a newline is never split into names that are not there (or into part of a denied name)', async () => {
    const root = tree({ 'ok.ts': '' });
    writeFileSync(path.join(root, 'secret-XYZ\nb.pem'), 'k');
    mkdirSync(path.join(root, 'q\nsrc'));
    writeFileSync(path.join(root, 'q\nsrc', 'y.ts'), '');
    mkdirSync(path.join(root, '.ssh'));
    writeFileSync(path.join(root, '.ssh', 'id\nfragment'), 'k');
    for (const [engine, names] of Object.entries(await globBoth(root, { pattern: '**/*' })))
      expect(
        names.filter((n) => /secret|fragment|^q$|^src\//.test(n)),
        engine,
      ).toEqual([]);
  });
});
