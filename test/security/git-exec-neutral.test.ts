import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitSafetyEnv, withGitSafety } from '../../src/tools/git/git-safety-env.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue #29 §5 "git without the repository's programs": a hostile repository (hooks, fsmonitor,
 * pagers, drivers, includes whatever their condition, a hostile HOME and XDG config, a submodule
 * with its own drivers, an `ext::` promisor remote, credential/askpass/ssh/proxy/upload-pack
 * programs, `!` aliases, signing, editors) runs git commands through `bash -c` with the environment
 * from gitSafetyEnv: no program it names may run (the marker outside the root stays empty) and git
 * still works. Each case then runs WITHOUT that environment and must write its label: the setup
 * really fires (the mutation check).
 */
const outside = makeTempDir('toolgate-git-marker-');
const MARKER = path.join(outside, 'marker');
const base = makeTempDir('toolgate-git-neutral-');
const repo = path.join(base, 'repo');
const home = path.join(base, 'home');
const EVIL = path.join(base, 'evil.sh');
let server: Server;
let httpUrl = '';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'protocol.file.allow=always', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, 'xdg') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The environment a person's shell has here: the hostile HOME and XDG config included. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, 'xdg') };
  for (const name of Object.keys(env)) if (name.startsWith('GIT_')) delete env[name];
  return env;
}

/** Runs `bash -c line` at `cwd`, with the safety environment computed now (at exec time) or none. */
function run(
  line: string,
  cwd: string,
  neutral: boolean,
  also: string[] = [],
): Promise<{ code: number | null; out: string }> {
  let env = userEnv();
  if (neutral) {
    const safety = gitSafetyEnv(cwd, env, also);
    expect(safety.problem).toBeUndefined();
    env = withGitSafety(env, safety);
  }
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', line], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('close', (code) => resolve({ code, out }));
  });
}

const marker = () => (existsSync(MARKER) ? readFileSync(MARKER, 'utf8') : '');
const evil = (label: string) => `${EVIL} ${label}`;

/** A program git runs without a shell (signing, askpass, proxy): the path alone, leaving `label`. */
function program(label: string): string {
  const file = path.join(base, 'bin', label);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `#!/bin/sh\necho ${label} >> '${MARKER}'\nexit 1\n`);
  chmodSync(file, 0o755);
  return file;
}

function hook(dir: string, name: string, label: string) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), `#!/bin/sh\necho ${label} >> '${MARKER}'\n`);
  chmodSync(path.join(dir, name), 0o755);
}

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="x"' }).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  httpUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/repo.git`;

  // Filters pass the content through; everything else only leaves its label.
  writeFileSync(EVIL, `#!/bin/sh\necho "$1" >> '${MARKER}'\ncase "$1" in *filter*) cat ;; esac\nexit 0\n`);
  chmodSync(EVIL, 0o755);
  mkdirSync(path.join(home, 'xdg', 'git'), { recursive: true });
  writeFileSync(
    path.join(home, '.gitconfig'),
    `[user]\n\tname = t\n\temail = t@t\n[init]\n\tdefaultBranch = main\n[alias]\n\thl = !${evil('home-alias')}\n[filter "h"]\n\tclean = ${evil('home-filter')}\n`,
  );
  writeFileSync(
    path.join(home, 'xdg', 'git', 'config'),
    `[diff "xd"]\n\ttextconv = ${evil('xdg-textconv')}\n`,
  );

  // A repository whose submodule brings its own drivers and hooks.
  const subsrc = path.join(base, 'subsrc');
  mkdirSync(subsrc);
  git(subsrc, 'init', '-q');
  writeFileSync(path.join(subsrc, '.gitattributes'), '* filter=y\n');
  writeFileSync(path.join(subsrc, 's.txt'), 's\n');
  git(subsrc, 'add', '.');
  git(subsrc, 'commit', '-qm', 's');
  // The server side of the lazy fetch: a bare copy that serves partial clones.
  const served = path.join(base, 'served.git');
  git(base, 'clone', '-q', '--bare', subsrc, served);
  git(served, 'config', 'uploadpack.allowFilter', 'true');

  mkdirSync(repo);
  git(repo, 'init', '-q');
  writeFileSync(
    path.join(repo, '.gitattributes'),
    '*.txt filter=x diff=x merge=x\n*.h filter=h\n*.md diff=xd\n*.inc filter=inc\n*.cond diff=cond\n',
  );
  for (const [name, text] of [
    ['a.txt', 'one\n'],
    ['b.h', 'h\n'],
    ['r.md', 'md\n'],
    ['c.inc', 'inc\n'],
    ['d.cond', 'cond\n'],
  ])
    writeFileSync(path.join(repo, name as string), text as string);
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'base');
  git(repo, 'submodule', 'add', '-q', subsrc, 'sm');
  git(repo, 'commit', '-qm', 'submodule');
  git(repo, 'branch', 'left');
  git(repo, 'branch', 'right');
  git(repo, 'checkout', '-q', 'left');
  writeFileSync(path.join(repo, 'a.txt'), 'left\n');
  git(repo, 'commit', '-qam', 'left');
  git(repo, 'checkout', '-q', 'right');
  writeFileSync(path.join(repo, 'a.txt'), 'right\n');
  writeFileSync(path.join(repo, 'd.cond'), 'cond changed\n');
  git(repo, 'commit', '-qam', 'right');
  git(repo, 'checkout', '-q', 'main');
  // A submodule whose name has many slashes (its git directory deep under modules/), left out of
  // .gitmodules: only the walk of modules/ finds its config.
  const deepName = 'deep/a/b/c/d/e/f/g';
  git(repo, 'submodule', 'add', '-q', '--name', deepName, subsrc, 'sm2');
  git(repo, 'config', '-f', '.gitmodules', '--remove-section', `submodule.${deepName}`);
  // A nested repository of its own (a vendored clone), entered with cd.
  const nested = path.join(repo, 'vendor', 'nested');
  mkdirSync(nested, { recursive: true });
  git(nested, 'init', '-q');
  writeFileSync(path.join(nested, '.gitattributes'), '* filter=nest\n');
  writeFileSync(path.join(nested, 'n.txt'), 'n\n');
  git(nested, 'add', '.');
  git(nested, 'commit', '-qm', 'n');
  // The lazy fetch: a partial clone whose promisor remote is an `ext::` command.
  const lazy = path.join(repo, 'lazy');
  git(base, 'clone', '-q', '--no-checkout', '--filter=blob:none', `file://${served}`, lazy);

  // Now the hostile settings, written after setting up (so setting up ran none of them).
  const planted = path.join(base, 'planted.cfg');
  writeFileSync(planted, `[filter "inc"]\n\tclean = ${evil('include-filter')}\n`);
  // Active only on branch "right": a checkout earlier in the same command turns it on.
  const onBranch = path.join(base, 'on-branch.cfg');
  writeFileSync(onBranch, `[diff "cond"]\n\ttextconv = ${evil('includeif-textconv')}\n`);
  const local: [string, string][] = [
    ['core.fsmonitor', evil('fsmonitor')],
    ['core.pager', evil('pager')],
    ['core.editor', evil('editor')],
    ['diff.x.textconv', evil('textconv')],
    ['diff.x.command', evil('diff-command')],
    ['diff.external', evil('diff-external')],
    ['filter.x.clean', evil('filter-clean')],
    ['filter.x.smudge', evil('filter-smudge')],
    ['merge.x.driver', `${evil('merge-driver')} %O %A %B`],
    ['include.path', planted],
    ['includeIf.onbranch:right.path', onBranch],
    ['credential.helper', `!${evil('credential')}`],
    ['core.askPass', program('askpass')],
    ['core.sshCommand', evil('ssh-command')],
    ['core.gitProxy', program('git-proxy')],
    ['remote.web.url', httpUrl],
    ['remote.sshr.url', 'ssh://127.0.0.1:1/x'],
    ['remote.gitr.url', 'git://127.0.0.1:1/x'],
    ['remote.up.url', served],
    ['remote.up.uploadpack', evil('upload-pack')],
    ['alias.st2', `!${evil('alias')}`],
    ['trailer.t.command', evil('trailer')],
    ['commit.gpgSign', 'true'],
    ['gpg.program', program('gpg')],
  ];
  for (const [key, value] of local) git(repo, 'config', key, value);
  for (const name of ['pre-commit', 'post-commit', 'post-checkout', 'reference-transaction'])
    hook(path.join(repo, '.git', 'hooks'), name, `hook-${name}`);
  const smGit = path.join(repo, '.git', 'modules', 'sm');
  git(smGit, 'config', 'filter.y.clean', evil('submodule-filter'));
  git(smGit, 'config', 'core.fsmonitor', evil('submodule-fsmonitor'));
  hook(path.join(smGit, 'hooks'), 'post-checkout', 'submodule-hook');
  writeFileSync(path.join(repo, 'sm', 's.txt'), 's changed\n');
  const deepGit = path.join(repo, '.git', 'modules', ...deepName.split('/'));
  git(deepGit, 'config', 'filter.deep.clean', evil('deep-submodule-filter'));
  writeFileSync(path.join(repo, 'sm2', '.git', '..', '.gitattributes'), '* filter=deep\n');
  git(nested, 'config', 'filter.nest.clean', evil('nested-filter'));
  git(lazy, 'config', 'remote.origin.url', `ext::${evil('ext-transport')} %S`);
  git(lazy, 'config', 'protocol.ext.allow', 'always');
}, 60_000);

afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** [what fires, where, the command line]: each must leave `label` in the marker without the env. */
const CASES: [label: string, where: 'repo' | 'lazy', line: string][] = [
  ['fsmonitor', 'repo', 'git status'],
  ['submodule-fsmonitor', 'repo', 'git status --ignore-submodules=none'],
  ['submodule-filter', 'repo', 'cd sm && git add s.txt && git reset -q'],
  [
    'deep-submodule-filter',
    'repo',
    'cd sm2 && echo d > s.txt && git add s.txt; git reset -q; git checkout -q -- s.txt',
  ],
  ['pager', 'repo', "script -qec 'git log -1' /dev/null"],
  ['filter-clean', 'repo', 'echo two > a.txt && git add a.txt; git reset -q; git checkout -q -- a.txt'],
  ['filter-smudge', 'repo', 'rm -f a.txt && git checkout -- a.txt'],
  ['home-filter', 'repo', 'echo h2 > b.h && git add b.h; git reset -q; git checkout -q -- b.h'],
  ['include-filter', 'repo', 'echo i2 > c.inc && git add c.inc; git reset -q; git checkout -q -- c.inc'],
  ['textconv', 'repo', 'git log -p -2 --format=%s -- a.txt'],
  ['textconv', 'repo', 'git cat-file --textconv HEAD:a.txt'],
  ['textconv', 'repo', 'git blame a.txt'],
  ['xdg-textconv', 'repo', 'echo md2 > r.md && git diff --no-ext-diff r.md; git checkout -q -- r.md'],
  ['diff-external', 'repo', 'echo two > a.txt && git diff; git checkout -q -- a.txt'],
  [
    'includeif-textconv',
    'repo',
    'git checkout -q right && git log -p -1 --no-ext-diff -- d.cond; git checkout -q main',
  ],
  ['hook-pre-commit', 'repo', 'git commit -q --allow-empty -m x'],
  ['hook-post-checkout', 'repo', 'git checkout -q -b tmp && git checkout -q main && git branch -q -D tmp'],
  ['submodule-hook', 'repo', 'git submodule update --checkout --force sm'],
  ['gpg', 'repo', 'git commit -q --allow-empty -m signed'],
  ['editor', 'repo', 'git commit -q --allow-empty'],
  [
    'merge-driver',
    'repo',
    'git checkout -q -B mtmp left && git merge -q --no-edit right; git merge --abort; git checkout -q -f main',
  ],
  ['credential', 'repo', 'git fetch -q web'],
  ['askpass', 'repo', 'git -c credential.helper= fetch -q web'],
  ['ssh-command', 'repo', 'git fetch -q sshr'],
  ['git-proxy', 'repo', 'git fetch -q gitr'],
  ['upload-pack', 'repo', 'git fetch -q up'],
  ['alias', 'repo', 'git st2'],
  ['home-alias', 'repo', 'git hl'],
  ['trailer', 'repo', 'echo | git interpret-trailers --trailer t=x'],
  ['ext-transport', 'lazy', 'git show HEAD:s.txt'],
];

describe("issue #29 §5: git runs none of the repository's programs (gitSafetyEnv at exec time)", () => {
  for (const [label, where, line] of CASES) {
    it(`${label}: \`${line}\` runs no program with the env, and fires without it`, async () => {
      const cwd = where === 'repo' ? repo : path.join(repo, 'lazy');
      rmSync(MARKER, { force: true });
      const safe = await run(line, cwd, true);
      expect(marker(), safe.out).toBe('');
      await run(line, cwd, false);
      expect(marker().split('\n')).toContain(label);
      rmSync(MARKER, { force: true });
    }, 30_000);
  }

  it('a nested repository entered with cd: its drivers are switched off when the caller names the directory', async () => {
    const nested = path.join(repo, 'vendor', 'nested');
    const line =
      'cd vendor/nested && echo n2 > n.txt && git add n.txt; git reset -q; git checkout -q -- n.txt';
    rmSync(MARKER, { force: true });
    const safe = await run(line, repo, true, [nested]);
    expect(marker(), safe.out).toBe('');
    // Not named: the fixed settings hold there, but its own filter names are not known (the limit).
    await run(line, repo, true);
    expect(marker().split('\n')).toContain('nested-filter');
    rmSync(MARKER, { force: true });
  });

  it('git still works: status prints, a commit is made, a checkout and a local fetch work, history reads', async () => {
    rmSync(MARKER, { force: true });
    const status = await run('git status --porcelain=v1 --branch', repo, true);
    expect(status.code).toBe(0);
    expect(status.out).toContain('## main');
    const before = git(repo, 'rev-parse', 'HEAD').trim();
    const commit = await run('echo three > a.txt && git add a.txt && git commit -q -m three', repo, true);
    expect(commit.code, commit.out).toBe(0);
    expect(git(repo, 'rev-parse', 'HEAD').trim()).not.toBe(before);
    expect(git(repo, 'log', '-1', '--format=%s')).toBe('three\n');
    const show = await run('git show HEAD:a.txt && git checkout -q left && git checkout -q main', repo, true);
    expect(show.code, show.out).toBe(0);
    expect(show.out).toBe('three\n');
    // A remote with its own upload-pack (which git takes from the first file, so nothing
    // overrides it) makes the local transport refused: fail closed.
    const refused = await run('git fetch -q up', repo, true);
    expect(refused.out).toContain("transport 'file' not allowed");
    const fetch = await run(
      'git fetch -q ../served.git && git rev-parse --verify -q FETCH_HEAD',
      path.join(base, 'subsrc'),
      true,
    );
    expect(fetch.code, fetch.out).toBe(0);
    const plain = await run('git diff --no-ext-diff --no-textconv HEAD~1 -- a.txt', repo, true);
    expect(plain.out).toContain('+three');
    expect(marker()).toBe('');
  }, 30_000);

  it('is computed when the command starts: config written after an earlier look is switched off too', async () => {
    rmSync(MARKER, { force: true });
    const before = gitSafetyEnv(repo, userEnv());
    git(repo, 'config', 'filter.late.clean', evil('late-filter'));
    writeFileSync(path.join(repo, '.gitattributes'), '*.late filter=late\n', { flag: 'a' });
    writeFileSync(path.join(repo, 'e.late'), 'late\n');
    const after = gitSafetyEnv(repo, userEnv());
    expect(before.set.GIT_CONFIG_PARAMETERS).not.toContain("'filter.late.clean'");
    expect(after.set.GIT_CONFIG_PARAMETERS).toContain("'filter.late.clean'");
    await run('git add e.late', repo, true);
    expect(marker()).toBe('');
  });

  it('removes inherited variables that pick another repository or program', () => {
    const env = {
      ...userEnv(),
      GIT_DIR: '/elsewhere',
      GIT_EXEC_PATH: '/tmp',
      GIT_CONFIG_PARAMETERS: "'a.b'='c'",
    };
    const safety = gitSafetyEnv(repo, env);
    expect(safety.unset).toEqual(
      expect.arrayContaining(['GIT_DIR', 'GIT_EXEC_PATH', 'GIT_CONFIG_PARAMETERS']),
    );
    const applied = withGitSafety(env, safety);
    expect(applied.GIT_DIR).toBeUndefined();
    // Its own settings replace the inherited ones: no 'a.b'.
    expect(applied.GIT_CONFIG_PARAMETERS).toContain("'core.hooksPath'='/dev/null'");
    expect(applied.GIT_CONFIG_PARAMETERS).not.toContain("'a.b'");
  });
});
