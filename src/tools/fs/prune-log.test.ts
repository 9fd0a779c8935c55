import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../test/helpers/workspace.js';
import { grepWithRipgrep, ripgrepBinary } from './grep-ripgrep.js';
import type { GrepQuery } from './grep-types.js';
import { PruneLog } from './prune-log.js';
import { startRipgrep } from './start-ripgrep.js';

/**
 * Issue #33: grep learns what its pruned walk skipped from ripgrep's own debug log, read from the
 * real (pinned) ripgrep here, so a version whose log reads otherwise fails these tests first.
 */

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const QUERY: GrepQuery = {
  pattern: 'needle',
  caseSensitive: false,
  fixedStrings: false,
  context: 0,
  include: undefined,
  maxResults: 1000,
};

/** Searches `root` pruned by `rules`, and returns what the log made of ripgrep's stderr. */
async function skipped(root: string, rules: string) {
  const binary = ripgrepBinary();
  if (binary === undefined) throw new Error('the ripgrep binary of @vscode/ripgrep is missing: run npm ci');
  const log = new PruneLog();
  const found: string[] = [];
  await grepWithRipgrep(
    binary,
    { cwd: root, target: '.', pruneRules: rules, pruneLog: log },
    QUERY,
    (line) => {
      found.push(line.path);
      return true;
    },
    new AbortController().signal,
  );
  const entries = [...log.entries].sort((a, b) => (a.path < b.path ? -1 : 1));
  return { complete: log.complete, entries, found: found.sort() };
}

function tree(files: string[]): string {
  const root = makeTempDir('toolgate-prune-log-');
  made.push(root);
  for (const file of files) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), 'needle\n');
  }
  return root;
}

describe('PruneLog reads what ripgrep skipped (issue #33)', () => {
  it('every folder and file the rules skip, at any depth, with spaces and non-ASCII names, and nothing else', async () => {
    const root = tree([
      'a/dist/f.js',
      'sp ace/dist/f.js',
      'ü/dist/f.js',
      'b/node_modules/x/f.js',
      'c/g.js',
      'c/x.log',
      'c/.hidden/f.js',
      'keep.js',
    ]);
    expect(await skipped(root, 'dist/\nnode_modules/\n*.log\n')).toEqual({
      complete: true,
      entries: [
        { path: 'a/dist', directory: true },
        { path: 'b/node_modules', directory: true },
        { path: 'c/x.log', directory: false },
        { path: 'sp ace/dist', directory: true },
        { path: 'ü/dist', directory: true },
      ],
      found: ['c/g.js', 'keep.js'],
    });
  });

  it('a folder whose path holds a line break, or is not UTF-8, leaves the log unread (the search then runs unpruned)', async () => {
    const broken = await skipped(tree(['a\nb/dist/f.js', 'ok/dist/f.js']), 'dist/\n');
    expect(broken.complete).toBe(false);
    const root = tree(['ok/dist/f.js']);
    // bad\xff/dist: a folder name that is not UTF-8, as Linux allows.
    const bad = Buffer.concat([Buffer.from(`${root}/bad`), Buffer.from([0xff])]);
    mkdirSync(Buffer.concat([bad, Buffer.from('/dist')]), { recursive: true });
    writeFileSync(Buffer.concat([bad, Buffer.from('/dist/f.js')]), 'needle\n');
    const latin = await skipped(root, 'dist/\n');
    expect(latin.complete).toBe(false);
  });

  it('without the line saying the rules were read, or with a line about them in another form, it is not complete', () => {
    const skip =
      'rg: DEBUG|ignore::walk|crates/ignore/src/walk.rs:1942: ignoring ./a/dist: Ignore(IgnoreMatch(Gitignore(Glob { from: Some("/dev/stdin"), original: "dist/", actual: "**/dist", is_whitelist: false, is_only_dir: true })))';
    const opened =
      'rg: DEBUG|ignore::gitignore|crates/ignore/src/gitignore.rs:398: opened gitignore file: /dev/stdin';
    const alone = new PruneLog();
    alone.feed(skip);
    expect(alone.complete).toBe(false);

    const whole = new PruneLog();
    for (const line of [opened, 'rg: DEBUG|grep_printer::json|x: ignoring ./bin: found binary data', skip])
      whole.feed(line);
    expect({ complete: whole.complete, entries: whole.entries }).toEqual({
      complete: true,
      entries: [{ path: 'a/dist', directory: true }],
    });

    const odd = new PruneLog();
    odd.feed(opened);
    odd.feed(skip.replace('is_only_dir', 'only_dir'));
    expect(odd.complete).toBe(false);

    const cut = new PruneLog();
    cut.feed(opened);
    cut.unfinished();
    expect(cut.complete).toBe(false);
  });
});

describe('PruneLog: lines that only name /dev/stdin, and ripgrep killed from elsewhere (review of issue #33)', () => {
  it('a workspace under a folder named dev/stdin… keeps its one walk: only lines about the rules count', async () => {
    const root = makeTempDir('toolgate-prune-log-');
    made.push(root);
    const base = path.join(root, 'dev/stdin-proj');
    for (const file of ['dist/f.js', 'keep.js', 'dev/stdin/.h']) {
      mkdirSync(path.dirname(path.join(base, file)), { recursive: true });
      writeFileSync(path.join(base, file), 'needle\n');
    }
    expect(await skipped(base, 'dist/\n')).toEqual({
      complete: true,
      entries: [{ path: 'dist', directory: true }],
      found: ['keep.js'],
    });
  });

  it('ripgrep killed by a signal toolgate did not send leaves the log unfinished; one toolgate sent does not', async () => {
    const run = async (script: string, stopHere: boolean) => {
      const log = new PruneLog();
      const started = startRipgrep('/bin/sh', ['-c', script], { cwd: '/', pruneLog: log });
      if (stopHere) started.stop();
      await started.exited;
      return { complete: log.complete, elsewhere: started.killedElsewhere() };
    };
    const opened =
      'rg: DEBUG|ignore::gitignore|crates/ignore/src/gitignore.rs:398: opened gitignore file: /dev/stdin';
    // Its own log line, then death by SIGXFSZ (as under a file-size limit on the log).
    expect(await run(`echo '${opened}' >&2; kill -XFSZ $$`, false)).toEqual({
      complete: false,
      elsewhere: true,
    });
    expect(await run(`echo '${opened}' >&2; exit 0`, false)).toEqual({ complete: true, elsewhere: false });
    expect(await run(`echo '${opened}' >&2; exec sleep 30`, true)).toMatchObject({ elsewhere: false });
  });
});
