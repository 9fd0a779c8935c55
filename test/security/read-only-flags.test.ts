// Issue #29 §4 (read-only list gaps) and §5 (rules bypassed by git's global options): a program on
// the read-only list, or allowed by a rule, runs without asking only with flags known to be safe for
// it, read as the program reads them (clusters, abbreviations, separate values, `--`, permutation).
// The decisions are checked through the whole planner and policy, and the lines are executed for
// real by toolgate's executor with nobody to approve: nothing outside the root is read, nothing is
// written, no commit is made.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { denyAll } from '../../src/core/confirmation.js';
import { createToolgate, type Toolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

type Outcome = 'allow' | 'ask' | 'deny';

const root = makeTempDir('toolgate-flags-root-');
const outside = makeTempDir('toolgate-flags-outside-');
const SECRET = path.join(outside, 'secret.txt');
const MARKER = path.join(outside, 'marker');

function git(...args: string[]) {
  return execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], {
    cwd: root,
    encoding: 'utf8',
  }).trim();
}

beforeAll(() => {
  writeFileSync(SECRET, 'OUTSIDESECRET\n');
  writeFileSync(path.join(root, 'a.txt'), 'beta\nalpha\n');
  writeFileSync(path.join(root, 'pats'), 'alpha\n');
  // File-name lists naming a file outside the root: no word of a command that reads them names it.
  writeFileSync(path.join(root, 'list0.txt'), `${SECRET}\0`);
  writeFileSync(path.join(root, 'list.txt'), `${SECRET}\n`);
  mkdirSync(path.join(root, 'src'));
  writeFileSync(path.join(root, 'src', 'b.txt'), 'gamma\n');
  mkdirSync(path.join(root, 'scratch'));
  writeFileSync(path.join(root, 'scratch', 'keep.txt'), 'keep\n');
  git('init', '-q');
  git('add', 'a.txt', 'src');
  git('commit', '-qm', 'first');
});

const gateFor = (run_command: Record<string, unknown>, policy?: Record<string, unknown>) =>
  createToolgate({
    config: validateConfig({
      tools: { approval: { denylist: [] }, run_command, ...(policy ? { policy } : {}) },
    }),
    roots: [root],
    approver: denyAll,
    builtins: true,
  });

async function decide(gate: Toolgate, command: string): Promise<{ outcome: Outcome; why: string }> {
  const call = { id: '1', name: 'run_command', arguments: { command } };
  await gate.prepare([call]);
  const [planned] = gate.plan([call]);
  const kind = planned?.disposition.kind;
  return {
    outcome: kind === 'execute' ? 'allow' : kind === 'needs_approval' ? 'ask' : 'deny',
    why: planned?.decision?.reason ?? '',
  };
}

const READ_ONLY = { auto_allow_read_only: true };

/** [command, expected with the read-only list on, the finding or variant it covers] */
const READ_ONLY_TABLE: [string, Outcome, string][] = [
  // sort --files0-from (finding): names from a file or stdin
  ['sort --files0-from=-', 'ask', 'finding: names from stdin'],
  ['sort --files0-from=list0.txt', 'ask', 'names from a file'],
  ['sort --files0-from list0.txt', 'ask', 'value as the next word'],
  ['sort --files0 list0.txt', 'ask', 'an abbreviation'],
  ['sort -r --files0-f=list0.txt', 'ask', 'an abbreviation after another flag'],
  ['sort a.txt --files0-from=list0.txt', 'ask', 'after an operand (GNU permutes)'],
  ['wc --files0-from=list0.txt', 'ask', 'wc reads names too'],
  ['wc --files0=-', 'ask', 'wc, abbreviated, stdin'],
  ['du --files0-from=list0.txt', 'ask', 'du reads names too'],
  ['file -f list.txt', 'ask', 'file -f reads names'],
  ['file --files-f list.txt', 'ask', 'file, abbreviated'],
  // date --set and its abbreviations (finding)
  ['date --s=2020-01-01', 'ask', 'finding: --s abbreviates --set'],
  ['date --se=2020-01-01', 'ask', '--se'],
  ['date --set 2020-01-01', 'ask', '--set with its value as the next word'],
  ['date -s 2020-01-01', 'ask', '-s'],
  ['date -us2020-01-01', 'ask', '-s inside a cluster, value attached'],
  ['date +%s -s 2020-01-01', 'ask', '-s after an operand'],
  ['date 010100002030', 'ask', 'an operand that is not +FORMAT sets the clock'],
  ['date -f pats', 'ask', '-f reads dates from a file'],
  ['date --fil pats', 'ask', '--file, abbreviated'],
  ['date -u +%Y', 'allow', 'a format'],
  ['date --date=@0 +%s', 'allow', '--date'],
  ['date --u', 'allow', '--utc/--universal/--uct are one option'],
  ['date --r a.txt', 'ask', 'ambiguous prefix: not safe'],
  // tree -R and -o (finding)
  ['tree -aR', 'ask', 'finding: -R in a cluster'],
  ['tree -R', 'ask', '-R'],
  ['tree -a -R -L 1', 'ask', '-R among others'],
  ['tree -o made.txt', 'ask', '-o writes'],
  ['tree -omade.txt', 'ask', '-o in a cluster'],
  ['tree -Lo 1 made.txt', 'ask', "tree's value letters take the next word: -o's value is made.txt"],
  ['tree -H . src', 'ask', '-H makes HTML'],
  ['tree --fromfile list.txt', 'ask', '--fromfile'],
  ['tree --outfile x', 'ask', 'unknown to tree'],
  ['tree -L 1 src', 'allow', 'known flags'],
  // sort writes and runs
  ['sort -o made.txt a.txt', 'ask', '-o'],
  ['sort -omade.txt a.txt', 'ask', '-o with its value attached'],
  ['sort -romade.txt a.txt', 'ask', '-o inside a cluster'],
  ['sort a.txt -o made.txt', 'ask', '-o after the operand'],
  ['sort --outp=made.txt a.txt', 'ask', '--output abbreviated'],
  ['sort --o made.txt a.txt', 'ask', '--o is --output'],
  ['sort --compress-prog=x a.txt', 'ask', '--compress-program abbreviated'],
  ['sort --c=x a.txt', 'ask', 'ambiguous'],
  ['sort -T scratch a.txt', 'ask', '-T writes temporaries'],
  ['sort --frobnicate a.txt', 'ask', 'unknown'],
  ['sort -rn a.txt', 'allow', 'known flags'],
  ['sort -k 2 -t , a.txt', 'allow', 'flags with values'],
  ['sort -k -o a.txt', 'allow', '-o as the value of -k is a key'],
  ['sort -- -o', 'allow', 'after --, -o is a file name'],
  // grep: file values, abbreviations, permutation
  ['grep -f pats a.txt', 'allow', '-f FILE (its path judged)'],
  ['grep --file=pats a.txt', 'allow', '--file=FILE'],
  ['grep -f - a.txt', 'ask', 'patterns from stdin'],
  ['grep -fpats a.txt', 'ask', 'a file value attached inside a cluster'],
  ['grep -nfpats a.txt', 'ask', 'the same, later in the cluster'],
  [`grep -f ${SECRET} a.txt`, 'ask', 'a file outside the root'],
  [`grep --file ${SECRET} a.txt`, 'ask', '--file outside, value as the next word'],
  [`grep --exclude-from=${SECRET} alpha a.txt`, 'ask', '--exclude-from outside'],
  ['grep --line-n alpha a.txt', 'allow', 'an abbreviation'],
  ['grep --co alpha a.txt', 'ask', 'ambiguous abbreviation'],
  ['grep alpha a.txt --frobnicate', 'ask', 'an unknown option after the operands'],
  ['grep -e --frobnicate a.txt', 'allow', 'a value of -e'],
  ['grep -2 alpha a.txt', 'allow', '-NUM'],
  // rg
  ['rg --pre x alpha a.txt', 'ask', '--pre'],
  ['rg --pre-glob x alpha a.txt', 'ask', '--pre-glob'],
  ['rg -z alpha a.txt', 'ask', '-z'],
  ['rg -iz alpha a.txt', 'ask', '-z in a cluster'],
  ['rg --search-zip alpha a.txt', 'ask', '--search-zip'],
  ['rg --pr=x alpha a.txt', 'ask', 'rg takes no abbreviations: unknown'],
  ['rg -in alpha a.txt', 'allow', 'plain flags'],
  // find's primaries
  ['find . -delete', 'ask', '-delete'],
  ['find scratch -fprint made.txt', 'ask', '-fprint'],
  ['find scratch -fprint0 made.txt', 'ask', '-fprint0'],
  ['find scratch -fls made.txt', 'ask', '-fls'],
  ['find scratch -fprintf made.txt %p', 'ask', '-fprintf'],
  ['find scratch -exec touch made.txt ;', 'ask', '-exec'],
  ['find scratch -execdir touch made.txt +', 'ask', '-execdir'],
  ['find scratch -ok touch made.txt ;', 'ask', '-ok'],
  ['find scratch -okdir touch made.txt ;', 'ask', '-okdir'],
  ['find -files0-from list0.txt', 'ask', 'starting points from a file'],
  ['find scratch -frobnicate', 'ask', 'unknown primary'],
  ['find src -name -delete -print', 'allow', '-delete as the value of -name'],
  ["find src -type f -name '*.txt'", 'allow', 'safe primaries'],
  // others
  ['tail -f a.txt', 'ask', 'never ends'],
  ['tail --fo a.txt', 'ask', '--follow abbreviated'],
  ['tail -5f a.txt', 'ask', 'obsolete -5f'],
  ['tail -n 1 a.txt', 'allow', 'plain'],
  ['head -1 a.txt', 'allow', '-NUM'],
  ['uniq a.txt made.txt', 'ask', 'a second operand is written'],
  ['uniq -c a.txt', 'allow', 'plain'],
  ['file -C -m made.txt', 'ask', '-C'],
  ['file -z a.txt', 'ask', '-z runs decompressors'],
  ['file -p a.txt', 'ask', '-p sets times'],
  ['file --mime-type a.txt', 'allow', 'plain'],
  ['printf -v x 1', 'ask', 'printf -v assigns'],
  ['ls --colo=never -la', 'allow', 'abbreviation with a value'],
  ['ls --frobnicate', 'ask', 'unknown'],
  ['cat --show-a a.txt', 'allow', 'abbreviation'],
  ['cat -z a.txt', 'ask', 'unknown short flag'],
  ['du -X pats src', 'allow', '-X FILE'],
  [`du -X ${SECRET} src`, 'ask', '-X outside'],
  ['stat -c %s a.txt', 'allow', 'plain'],
  ['realpath --relative-to=. a.txt', 'allow', 'plain'],
  ['uname -a', 'allow', 'plain'],
  ['whoami --frobnicate', 'ask', 'unknown'],
  // git: as strict as before; git show off the list; global options
  ['git show -s HEAD', 'ask', 'git show -s <blob> prints the blob: off the list'],
  ['git log --oneline -n 1', 'allow', 'headers'],
  ['git -P log --oneline', 'allow', 'a harmless global option'],
  ['git --no-pager log --oneline', 'allow', 'a harmless global option'],
  ['git -p log --oneline', 'ask', '-p runs a pager'],
  ['git --bare log --oneline', 'ask', '--bare reads another layout'],
  ['git --frob log --oneline', 'ask', 'an unknown global option'],
  ['git log -p', 'ask', 'patches'],
  ['git log --patch-with-stat', 'ask', 'unknown to the header table'],
  ['git log --output=made.txt', 'ask', '--output'],
  ['git diff --stat', 'allow', 'counts'],
  ['git diff --stat --output=made.txt', 'ask', '--output'],
  ['git blame --contents=pats a.txt', 'ask', '--contents'],
  ['git blame --cont=pats a.txt', 'ask', '--contents, abbreviated'],
  ['git ls-files --recurse-submodules', 'ask', 'runs git in submodules'],
  ['git status --porc', 'allow', 'an abbreviation'],
];

/** Rules, with the read-only list off. */
const RULE_TABLE: [string, Record<string, unknown>, Outcome, string][] = [
  ['sort -o made.txt a.txt', { allow: ['sort'] }, 'ask', 'allow = ["sort"] does not allow -o'],
  ['sort --outp=made.txt a.txt', { allow: ['sort'] }, 'ask', 'nor its abbreviation'],
  ['sort --files0-from=-', { allow: ['sort'] }, 'ask', 'nor --files0-from'],
  ['sort -rn a.txt', { allow: ['sort'] }, 'allow', 'known flags'],
  ['sort -o made.txt a.txt', { allow: ['sort -o'] }, 'allow', 'the rule names -o: exactly that'],
  ['sort -r -o made.txt a.txt', { allow: ['sort -o'] }, 'ask', 'the rule names -o first, not -r -o'],
  ['date --s=2020-01-01', { allow: ['date'] }, 'ask', 'allow = ["date"] does not set the clock'],
  ['date 010100002030', { allow: ['date'] }, 'ask', 'nor through an operand'],
  ['tree -aR', { allow: ['tree'] }, 'ask', 'allow = ["tree"] does not allow -R'],
  ['find . -delete', { allow: ['find'] }, 'ask', 'allow = ["find"] does not allow -delete'],
  ['grep -fpats a.txt', { allow: ['grep'] }, 'ask', 'a file value the planner cannot judge'],
  ['npm test --anything', { allow: ['npm test'] }, 'allow', 'no table: the prefix alone'],
  // git's global options (§5)
  ['git -P commit -m x', { deny: ['git commit'] }, 'deny', 'finding: git -P commit'],
  ['git --no-pager commit -m x', { deny: ['git commit'] }, 'deny', '--no-pager'],
  ['git -c a=b commit -m x', { deny: ['git commit'] }, 'deny', '-c k=v'],
  ['git -C . commit -m x', { deny: ['git commit'] }, 'deny', '-C DIR'],
  ['git --git-dir=.git commit -m x', { deny: ['git commit'] }, 'deny', '--git-dir=X'],
  ['git --git-dir .git commit -m x', { deny: ['git commit'] }, 'deny', '--git-dir X'],
  ['git --work-tree . commit -m x', { deny: ['git commit'] }, 'deny', '--work-tree X'],
  ['git --namespace n commit -m x', { deny: ['git commit'] }, 'deny', '--namespace X'],
  ['git --exec-path=/usr/lib/git-core commit', { deny: ['git commit'] }, 'deny', '--exec-path=X'],
  ['git --config-env a=B commit', { deny: ['git commit'] }, 'deny', '--config-env X'],
  ['git -p --literal-pathspecs commit', { deny: ['git commit'] }, 'deny', 'several'],
  [
    'git --frobnicate commit',
    { deny: ['git commit'] },
    'deny',
    'an unknown global option: deny fails closed',
  ],
  ['git -P push origin', { ask: ['git push'], allow: ['git'] }, 'ask', 'ask rules too'],
  ['git -P status', { allow: ['git status'] }, 'allow', 'allow through a harmless option'],
  ['git --no-optional-locks status', { allow: ['git status'] }, 'allow', 'another harmless one'],
  ['git -p status', { allow: ['git status'] }, 'ask', 'a pager is not harmless'],
  ['git --bare status', { allow: ['git status'] }, 'ask', 'nor --bare'],
  ['git --bare status', { allow: ['git'] }, 'ask', 'not even for allow = ["git"]'],
  [
    'git --frobnicate status',
    { allow: ['git status'] },
    'ask',
    'an unknown global option: allow fails closed',
  ],
  ['git -C src status', { allow: ['git status'] }, 'ask', '-C still asks'],
];

describe('issue #29 §4: the read-only list as flag allowlists', () => {
  let gate: Toolgate;
  beforeAll(() => {
    gate = gateFor(READ_ONLY);
  });
  afterAll(() => gate.close());

  it.each(READ_ONLY_TABLE)('%s → %s (%s)', async (command, expected) => {
    const { outcome, why } = await decide(gate, command);
    expect(outcome, why).toBe(expected);
  });

  it('says what was wrong and how to allow exactly that', async () => {
    const { why } = await decide(gate, 'sort --outp=made.txt a.txt');
    expect(why).toContain('--output is not safe to run without asking');
    expect(why).toMatch(/approve it, or allow exactly that with a rule naming it/);
    expect((await decide(gate, 'grep -fpats a.txt')).why).toContain(
      'write the file -f reads as a word of its own',
    );
    // An abbreviation is named as the option it resolves to; stdin is named as such.
    expect((await decide(gate, 'date --s=2020-01-01')).why).toContain('--set is not safe');
    expect((await decide(gate, 'grep -f - a.txt')).why).toContain('-f - (standard input) reads what no word');
  });
});

describe('issue #29 §4/§5: allow, deny and ask rules', () => {
  it.each(RULE_TABLE)('%s with %j → %s (%s)', async (command, rules, expected) => {
    const gate = gateFor(rules);
    const { outcome, why } = await decide(gate, command);
    await gate.close();
    expect(outcome, why).toBe(expected);
  });

  it('condition rules: deny sees git without its global options; allow names its flags in its values', async () => {
    const rule = (action: string, value: string) => ({
      rules: [
        { tool: 'run_command', action, conditions: [{ param: 'command', operator: 'startsWith', value }] },
      ],
    });
    const deny = gateFor({}, rule('deny', 'git commit'));
    expect((await decide(deny, 'git -P commit -m x')).outcome).toBe('deny');
    await deny.close();
    const allowSort = gateFor({}, rule('allow', 'sort '));
    expect((await decide(allowSort, 'sort -rn a.txt')).outcome).toBe('allow');
    expect((await decide(allowSort, 'sort -o made.txt a.txt')).outcome).toBe('ask');
    await allowSort.close();
    const allowOutput = gateFor({}, rule('allow', 'sort -o '));
    expect((await decide(allowOutput, 'sort -o made.txt a.txt')).outcome).toBe('allow');
    await allowOutput.close();
  });
});

/** What must not happen: files created in the root or outside it, the secret printed, a commit. */
function traces(output: string): string[] {
  const found: string[] = [];
  if (output.includes('OUTSIDESECRET')) found.push('printed the secret outside the root');
  if (/secret\.txt:|\d\s+\/\S*secret\.txt/.test(output)) found.push('listed the secret outside the root');
  if (existsSync(path.join(root, 'made.txt'))) found.push('wrote made.txt');
  if (existsSync(MARKER)) found.push('created the marker');
  if (!existsSync(path.join(root, 'scratch', 'keep.txt'))) found.push('deleted scratch/keep.txt');
  if (readdirSync(root).some((f) => f.startsWith('00Tree'))) found.push('wrote tree output');
  return found;
}

/** Lines that would read outside the root or write if they ran; date --set is only decided, never run. */
const ATTACKS = [
  'sort --files0-from=list0.txt',
  `printf '%s\\0' ${SECRET} | sort --files0-from=-`,
  `printf '%s\\0' ${SECRET} | wc --files0=-`,
  'sort --files0 list0.txt',
  'wc --files0-from=list0.txt',
  'du --files0-from=list0.txt',
  'file -f list.txt',
  'file --files-f list.txt',
  'sort -o made.txt a.txt',
  'sort -omade.txt a.txt',
  'sort -romade.txt a.txt',
  'sort a.txt -o made.txt',
  'sort --outp=made.txt a.txt',
  'sort --o made.txt a.txt',
  `sort --compress-prog=${path.join(root, 'evil.sh')} -S 1 a.txt`,
  'uniq a.txt made.txt',
  'find scratch -fprint made.txt',
  'find scratch -fprint0 made.txt',
  'find scratch -fls made.txt',
  'find scratch -fprintf made.txt %p',
  'find scratch -delete',
  `find scratch -exec touch ${MARKER} ;`,
  'find -files0-from list0.txt',
  'tree -aR -H . -o made.txt',
  'git log --output=made.txt',
  'git diff --stat --output=made.txt',
];

describe('issue #29 §4: executed by toolgate with nobody to approve', () => {
  let gate: Toolgate;
  beforeAll(() => {
    writeFileSync(path.join(root, 'evil.sh'), `#!/bin/sh\ntouch '${MARKER}'\n`, { mode: 0o755 });
    gate = gateFor(READ_ONLY);
  });
  afterAll(() => gate.close());

  it('the attacks work when run by bash directly (so an absent trace means toolgate stopped them)', () => {
    const run = (line: string) =>
      execFileSync('/bin/bash', ['--noprofile', '--norc', '-c', line], { cwd: root, encoding: 'utf8' });
    expect(run('sort --files0-from=list0.txt')).toContain('OUTSIDESECRET');
    run('sort --outp=made.txt a.txt');
    expect(traces('')).toEqual(['wrote made.txt']);
    execFileSync('rm', [path.join(root, 'made.txt')]);
  });

  it.each(ATTACKS)('%s: not allowed, and running it through toolgate leaves no trace', async (command) => {
    expect((await decide(gate, command)).outcome).not.toBe('allow');
    const [result] = await gate.execute([{ id: '1', name: 'run_command', arguments: { command } }]);
    expect(traces(`${result?.content ?? ''}${result?.error?.message ?? ''}`)).toEqual([]);
  });

  it.each([
    ['sort -rn a.txt', 'beta\nalpha'],
    ['grep --line-n alpha a.txt', '2:alpha'],
    ['grep -f pats a.txt', 'alpha'],
    ['head -1 a.txt', 'beta'],
    ['tail -n 1 a.txt', 'alpha'],
    ['cat --show-a a.txt', 'beta$'],
    ['ls --colo=never -la', 'a.txt'],
    ["find src -type f -name '*.txt'", 'src/b.txt'],
    ['find src -name -delete -print', ''],
    ['uniq -c a.txt', '1 beta'],
    ['cut -c1-3 a.txt', 'bet'],
    ['stat -c %s a.txt', '11'],
    ['realpath --relative-to=. src/b.txt', 'src/b.txt'],
    ['du -X pats src', 'src'],
    ['wc -l a.txt', '2 a.txt'],
    ['date -u --date=@0 +%Y', '1970'],
    ['file --mime-type a.txt', 'text/plain'],
    ['git -P log --oneline', 'first'],
    ['git --no-pager diff --stat', ''],
  ])('still allowed and run: %s', async (command, expected) => {
    expect((await decide(gate, command)).outcome).toBe('allow');
    const [result] = await gate.execute([{ id: '1', name: 'run_command', arguments: { command } }]);
    expect(result?.ok, result?.content).toBe(true);
    expect(result?.content ?? '').toContain(expected);
    expect(traces(result?.content ?? '')).toEqual([]);
  });

  it('§5: a deny rule stops git commit behind global options; no commit is made', async () => {
    const deny = gateFor({ allow: ['git'], deny: ['git commit'] });
    const before = git('rev-list', '--count', 'HEAD');
    for (const command of [
      'git -P commit --allow-empty -m x',
      'git --no-pager commit --allow-empty -m x',
      'git -c user.name=x commit --allow-empty -m x',
      'git --git-dir=.git commit --allow-empty -m x',
      'git --literal-pathspecs commit --allow-empty -m x',
    ]) {
      expect((await decide(deny, command)).outcome, command).toBe('deny');
      await deny.execute([{ id: '1', name: 'run_command', arguments: { command } }]);
      expect(git('rev-list', '--count', 'HEAD'), command).toBe(before);
    }
    await deny.close();
  });
});
