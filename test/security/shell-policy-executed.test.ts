// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell text, where ${…} is shell syntax
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { denyAll } from '../../src/core/confirmation.js';
import { createToolgate, type Toolgate } from '../../src/toolgate.js';
import { scrubEnv } from '../../src/tools/shell/env-scrub.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue #13: the shell policy against the real executors. Every line wraps a forbidden command
 * (`touch MARKER`, MARKER outside the root) in one bypass; a line passes only when the marker does
 * not exist afterwards. A line the analyzer allows is run under bash (what toolgate runs) AND dash
 * (another reading of the same text); a line it does not allow goes through the whole pipeline
 * with nobody to approve. `touch` itself is never allowed. The root is a hostile repository: its
 * git config runs the payload through fsmonitor, an external diff, a textconv and a clean filter.
 */
const root = makeTempDir('toolgate-exec-root-');
const outside = makeTempDir('toolgate-exec-outside-');
const MARKER = path.join(outside, 'marker');
const EVIL = path.join(root, 'evil.sh');

const config = validateConfig({
  tools: {
    approval: { denylist: [] },
    run_command: {
      allow: [
        'echo',
        'cat',
        'ls',
        'grep',
        'printf',
        'true',
        'test',
        'git status',
        'wc',
        'head',
        'sort',
        'env',
      ],
      deny: ['rm'],
      auto_allow_read_only: true,
    },
  },
});

let gate: Toolgate;
beforeAll(async () => {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  git('init', '-q');
  writeFileSync(EVIL, `#!/bin/sh\ntouch '${MARKER}'\n`);
  chmodSync(EVIL, 0o755);
  for (const name of ['ls', 'cat', 'git']) {
    writeFileSync(path.join(root, name), `#!/bin/sh\ntouch '${MARKER}'\n`);
    chmodSync(path.join(root, name), 0o755);
  }
  writeFileSync(path.join(root, 'a.txt'), 'alpha\nbeta\n');
  writeFileSync(path.join(root, 'b.txt'), 'beta\n');
  writeFileSync(path.join(root, '.gitattributes'), '*.txt filter=x diff=x\n');
  writeFileSync(path.join(root, 'rgrc'), `--pre=${EVIL}\n`);
  mkdirSync(path.join(root, 'home'));
  writeFileSync(path.join(root, 'home', '.gitconfig'), `[core]\n\tfsmonitor = ${EVIL}\n`);
  mkdirSync(path.join(root, 'xdg', 'git'), { recursive: true });
  writeFileSync(path.join(root, 'xdg', 'git', 'config'), `[core]\n\tfsmonitor = ${EVIL}\n`);
  git('add', 'a.txt');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'x');
  writeFileSync(path.join(root, 'a.txt'), 'alpha\nchanged\n');
  // The hostile repository's own settings, written after the commit (so setting up ran nothing).
  for (const [key, value] of [
    ['core.fsmonitor', EVIL],
    ['diff.external', EVIL],
    ['diff.x.textconv', EVIL],
    ['filter.x.clean', EVIL],
    ['core.pager', EVIL],
  ] as const) {
    git('config', key, value);
  }
  gate = createToolgate({ config, roots: [root], approver: denyAll, builtins: true });
  await gate.prepare([{ id: 'p', name: 'run_command', arguments: { command: 'true' } }]);
});

const P = `touch ${MARKER}`;
/** Spellings of the forbidden command. */
const PAYLOADS = [
  P,
  `/usr/bin/touch ${MARKER}`,
  `t\\ouch ${MARKER}`,
  `"touch" '${MARKER}'`,
  `$'touch' ${MARKER}`,
];

/** One bypass each; `{P}` is the payload. */
const TEMPLATES: string[] = [
  // separators and grouping
  'ls; {P}',
  'ls && {P}',
  'ls || {P}',
  'ls | {P}',
  'ls & {P}',
  'ls\n{P}',
  'ls |& {P}',
  '({P})',
  '{ {P}; }',
  '! {P}',
  'if true; then {P}; fi',
  'while false; do :; done; {P}',
  'for f in a; do {P}; done',
  'case a in a) {P};; esac',
  'f() { {P}; }; f',
  // the shells read these differently
  'ls &>/dev/null {P}',
  'ls &> /dev/null; {P}',
  'ls\r{P}',
  'ls\v{P}',
  'ls\f{P}',
  'echo a\r\n{P}',
  'ec\\\nho x; {P}',
  // substitutions in every position
  'echo $({P})',
  'echo `{P}`',
  'echo "$({P})"',
  'echo "`{P}`"',
  'echo ${x:-`{P}`}',
  'echo ${x:-$({P})}',
  'echo ${x:=`{P}`}',
  'echo ${x:+`{P}`}',
  'echo "${x:-`{P}`}"',
  'echo ${x#`{P}`}',
  'echo ${x/a/`{P}`}',
  'echo ${x:0:$({P})}',
  'cat <<EOF\n`{P}`\nEOF',
  'cat <<EOF\n$({P})\nEOF',
  'cat <<EOF\n${x:-`{P}`}\nEOF',
  'cat <<-EOF\n\t`{P}`\n\tEOF',
  'cat <<< "$({P})"',
  'cat <<< `{P}`',
  'cat <({P})',
  'echo >({P})',
  'cat < <({P})',
  'LANG=$({P}) ls',
  'x=$({P}); echo $x',
  'for f in $({P}); do echo; done',
  'case $({P}) in *) ;; esac',
  'case x in $({P})) ;; esac',
  '[[ -n $({P}) ]]',
  '[[ x =~ $({P}) ]]',
  '[[ x == `{P}` ]]',
  // arithmetic evaluation runs substitutions in array subscripts
  "[[ 1 -eq 'a[$({P})]' ]]; ls",
  '[[ 1 -eq "a[\\$({P})]" ]]',
  "[ 1 -eq 'a[$({P})]' ]",
  "test 1 -eq 'a[$({P})]'",
  '(( a[$({P})] ))',
  "x='a[$({P})]'; (( x ))",
  "x='a[$({P})]'; echo $((x))",
  "x='a[$({P})]'; [[ $x -eq 1 ]]",
  "let 'a[$({P})]'",
  "declare -i x='a[$({P})]'",
  "printf -v 'a[$({P})]' 1",
  "read 'a[$({P})]' <<< 1",
  'echo ${a[$({P})]}',
  "mapfile 'a[$({P})]' < /dev/null",
  'a[$({P})]=1',
  'echo $[a[$({P})]]',
  `bash -c "[[ 1 -eq 'a[\\$({P})]' ]]; ls"`,
  // environment prefixes and variables that steer the shell or git
  `BASH_ENV=${EVIL} bash -c ls`,
  `ENV=${EVIL} sh -i -c ls`,
  `env BASH_ENV=${EVIL} bash -c ls`,
  `env 'BASH_FUNC_ls%%=() { {P}; }' bash -c ls`,
  `PATH=.:$PATH ls`,
  'PATH=. ls',
  'env PATH=. ls',
  "PS4='$({P})' bash -xc ls",
  "SHELLOPTS=xtrace PS4='$({P})' bash -c ls",
  'IFS=x ls',
  `HOME=${root}/home git status`,
  `XDG_CONFIG_HOME=${root}/xdg git status`,
  `GIT_CONFIG_PARAMETERS="'core.fsmonitor=${EVIL}'" git status`,
  `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=${EVIL} git status`,
  `GIT_TRACE=${MARKER} git status`,
  `GIT_EXTERNAL_DIFF=${EVIL} git diff`,
  `git -c core.fsmonitor=${EVIL} status`,
  `git -c diff.external=${EVIL} diff`,
  `git --exec-path=${root} status`,
  `GIT_DIR=${root}/.git git status`,
  `RIPGREP_CONFIG_PATH=${root}/rgrc rg alpha`,
  `LD_PRELOAD=${root}/x.so ls`,
  // the hostile repository's own config (fsmonitor, external diff, textconv, clean filter, pager)
  'git status',
  'git status --short',
  'git diff',
  'git diff a.txt',
  'git log -p',
  'git show',
  'git blame a.txt',
  'git log --oneline -n 1',
  // read-only commands that write or run
  `sort -o ${MARKER} a.txt`,
  `sort -o${MARKER} a.txt`,
  `sort --output=${MARKER} a.txt`,
  `sort --outp=${MARKER} a.txt`,
  `sort --compress-program=${EVIL} a.txt`,
  `uniq a.txt ${MARKER}`,
  `find . -fprint ${MARKER}`,
  `find . -exec {P} ;`,
  `rg --pre ${EVIL} alpha`,
  `rg --pre=${EVIL} alpha`,
  `git diff --output=${MARKER}`,
  `git log --output=${MARKER}`,
  `tree -o ${MARKER}`,
  `file -C -m ${MARKER}`,
  `cat a.txt > ${MARKER}`,
  `ls >> ${MARKER}`,
  `ls &> ${MARKER}`,
  `ls >| ${MARKER}`,
  `echo x 1> ${MARKER}`,
  // programs that are not what their name says
  './ls',
  `${root}/cat a.txt`,
  'eval "{P}"',
  `source ${EVIL}`,
  `. ${EVIL}`,
  'alias ls="{P}"; ls',
  'xargs {P} < /dev/null',
  'echo a | xargs {P}',
  'env -S "{P}"',
  'exec {P}',
  'command {P}',
  'builtin eval "{P}"',
  'nohup {P}',
  'timeout 5 {P}',
  // -v / -R evaluate an array subscript (found by a hostile review, session 8)
  "[[ -v 'a[$({P})]' ]]; echo done",
  '[[ -v a[$({P})] ]]; echo done',
  "test -v 'a[$({P})]'; echo done",
  "[ -v 'a[$({P})]' ]; echo done",
  "[ -R 'a[$({P})]' ]; echo done",
  "y='a[$({P})]'; [[ -v $y ]]; echo done",
  'y=\'a[$({P})]\'; test -v "$y"; echo done',
  "op=-v; test $op 'a[$({P})]'; echo done",
];

const LINES = TEMPLATES.flatMap((t) =>
  t.includes('{P}') ? PAYLOADS.map((p) => t.replaceAll('{P}', p)) : [t],
);

/** Lines that must be allowed (so the suite cannot pass by asking for everything) and harmless. */
const BENIGN = [
  'ls',
  'ls -la',
  'cat a.txt',
  'cat < a.txt',
  'grep -n beta a.txt b.txt',
  'echo "hello world" | wc -l',
  'head -n 1 a.txt && wc -l a.txt',
  "printf '%s\\n' a b",
  'LANG=C sort a.txt',
  'ls 2>/dev/null',
  'cat a.txt 2>&1 | grep alpha',
  'echo $((1+2))',
  "cat <<'EOF'\n$(nothing runs here)\nEOF",
  'cat <<EOF\nplain text\nEOF',
  '[[ -f a.txt ]] && cat a.txt',
  'for f in a b; do echo "$f"; done',
  'true',
  '[[ -v HOME ]] && echo set',
  'test -v HOME && echo set',
  'LC_ALL=C sort b.txt',
  'LANG=en_US.UTF-8 cat a.txt',
];

const decide = async (command: string) => {
  const call = { id: '1', name: 'run_command', arguments: { command } };
  await gate.prepare([call]);
  const [planned] = gate.plan([call]);
  return planned?.disposition.kind === 'execute' ? 'allow' : 'not allowed';
};

const env = () => ({ ...scrubEnv(process.env), PATH: process.env.PATH ?? '/usr/bin:/bin' });
function runUnder(shell: 'bash' | 'dash', command: string): number | null {
  const argv =
    shell === 'bash' ? ['/bin/bash', '--noprofile', '--norc', '-c', command] : ['/bin/dash', '-c', command];
  return spawnSync(argv[0] as string, argv.slice(1), {
    cwd: root,
    env: env(),
    stdio: 'ignore',
    timeout: 5000,
  }).status;
}

/** Runs one line the way its decision says; true when the marker stayed absent. */
async function markerStaysAbsent(command: string): Promise<{ ok: boolean; decision: string; how: string }> {
  rmSync(MARKER, { force: true });
  const decision = await decide(command);
  if (decision === 'allow') {
    for (const shell of ['bash', 'dash'] as const) {
      runUnder(shell, command);
      if (existsSync(MARKER)) return { ok: false, decision, how: `allowed, and ${shell} created the marker` };
    }
  } else {
    await gate.execute([{ id: '1', name: 'run_command', arguments: { command } }]);
    if (existsSync(MARKER)) return { ok: false, decision, how: 'not allowed, yet the pipeline ran it' };
  }
  return { ok: true, decision, how: '' };
}

describe('shell policy against the real executors: bash and dash (issue #13)', () => {
  it('has at least 300 attack lines', () => {
    expect(LINES.length).toBeGreaterThanOrEqual(300);
  });

  it('the payload itself works here (so an absent marker means the bypass failed)', () => {
    rmSync(MARKER, { force: true });
    for (const payload of PAYLOADS) {
      for (const shell of ['bash', 'dash'] as const) {
        if (shell === 'dash' && payload.startsWith('$')) continue; // dash has no $'…'
        rmSync(MARKER, { force: true });
        runUnder(shell, payload);
        expect(existsSync(MARKER), `${shell}: ${payload}`).toBe(true);
      }
    }
    rmSync(MARKER, { force: true });
    runUnder('bash', 'git status');
    expect(existsSync(MARKER), 'the hostile repository runs its fsmonitor for a plain git status').toBe(true);
    rmSync(MARKER, { force: true });
  });

  it.each(LINES.map((line) => [JSON.stringify(line), line] as const))('%s', async (_name, line) => {
    const outcome = await markerStaysAbsent(line);
    expect(outcome.how, line).toBe('');
  });

  it.each(BENIGN.map((line) => [JSON.stringify(line), line] as const))(
    'still allowed and harmless: %s',
    async (_name, line) => {
      expect(await decide(line)).toBe('allow');
      const outcome = await markerStaysAbsent(line);
      expect(outcome.how).toBe('');
      expect(runUnder('bash', line)).toBe(0);
    },
  );
});

/** A small grammar of bypass attempts around the payload (fast-check). */
const wrap = fc.letrec((tie) => ({
  line: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(P, `t'ouch' ${MARKER}`, `/usr/bin/touch ${MARKER}`),
    tie('line').map((x) => `echo $(${x})`),
    tie('line').map((x) => `echo \`${x}\``),
    tie('line').map((x) => `echo "\${x:-\`${x}\`}"`),
    tie('line').map((x) => `ls && ${x}`),
    tie('line').map((x) => `ls; ${x}`),
    tie('line').map((x) => `ls | ${x}`),
    tie('line').map((x) => `(${x})`),
    tie('line').map((x) => `{ ${x}; }`),
    tie('line').map((x) => `bash -c ${JSON.stringify(x)}`),
    tie('line').map((x) => `sh -c ${JSON.stringify(x)}`),
    tie('line').map((x) => `cat <<EOF\n\`${x}\`\nEOF`),
    tie('line').map((x) => `ls &>/dev/null ${x}`),
    tie('line').map((x) => `[[ 1 -eq 'a[$(${x})]' ]]`),
    tie('line').map((x) => `x='a[$(${x})]'; echo $((x))`),
    tie('line').map((x) => `LANG=C ${x}`),
    tie('line').map((x) => `env ${x}`),
    tie('line').map((x) => `timeout 3 ${x}`),
    tie('line').map((x) => `echo ok 2>/dev/null >&2; ${x}`),
    tie('line').map((x) => `if ls; then ${x}; fi`),
    tie('line').map((x) => `for f in a; do ${x}; done`),
  ),
})).line;

describe('fuzz: whatever the analyzer allows does not create the marker (issue #13)', () => {
  it('generated bypass lines, run under bash and dash when allowed', async () => {
    await fc.assert(
      fc.asyncProperty(wrap, async (line) => {
        const outcome = await markerStaysAbsent(line);
        expect(outcome.how, line).toBe('');
      }),
      { numRuns: 300 },
    );
  }, 120_000);
});
