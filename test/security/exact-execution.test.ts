// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell text, where ${…} is shell syntax
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { type Approver, approveAll, denyAll } from '../../src/core/confirmation.js';
import type { ToolResult } from '../../src/core/tool-result.js';
import { createToolgate, type Toolgate } from '../../src/toolgate.js';
import { analyzeCommand } from '../../src/tools/shell/analyze-command.js';
import { loadShellParser } from '../../src/tools/shell/shell-parser.js';
import { REPO } from '../cli/run-cli.js';
import { alive, liveWith, waitFor } from '../helpers/process-group.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue #29: what runs is exactly what was judged. A command nobody approved runs as toolgate
 * rebuilt it from the tree it judged, never as the model's text read again by bash. Every case
 * wraps a forbidden `touch MARKER` (MARKER outside the root) in a bypass found by the outside attack
 * run; it goes through the whole pipeline (plan, policy, nobody to approve, execution) on the host
 * shell and on the session backend, and passes only when the marker does not exist afterwards.
 */
const root = makeTempDir('toolgate-exact-root-');
const outside = makeTempDir('toolgate-exact-outside-');
const MARKER = path.join(outside, 'marker');
const P = `touch ${MARKER}`;
const PLANTED = path.join(root, 'planted.sh');

const gates: Toolgate[] = [];
function gate(
  runCommand: Record<string, unknown>,
  backend: 'host' | 'session',
  approver: Approver = denyAll,
  roots: readonly string[] = [root],
) {
  const g = createToolgate({
    config: validateConfig({
      tools: {
        approval: { denylist: [] },
        run_command: runCommand,
        ...(backend === 'session' ? { shell: { backend: 'session' } } : {}),
      },
    }),
    roots,
    approver,
  });
  gates.push(g);
  return g;
}

beforeAll(async () => {
  writeFileSync(PLANTED, `${P}\n`);
  chmodSync(PLANTED, 0o755);
  await loadShellParser();
});
afterAll(async () => {
  for (const g of gates.splice(0)) await g.close();
});

let n = 0;
async function run(g: Toolgate, command: string, timeoutMs?: number): Promise<ToolResult> {
  const [result] = await g.execute([
    {
      id: `c${++n}`,
      name: 'run_command',
      arguments: { command, ...(timeoutMs ? { timeout_ms: timeoutMs } : {}) },
    },
  ]);
  return result as ToolResult;
}

const READ_ONLY = { auto_allow_read_only: true };
const ECHO = { allow: ['echo', 'true', 'false', 'test', ':'] };
const LS_BASH = { allow: ['ls', 'bash', 'xargs', 'printf'], auto_allow_read_only: true };

/** Here-document delimiters that bash and tree-sitter-bash end at different lines (finding 1). */
const HEREDOC_LINES = [
  // bash removes the quotes from `:''` and ends the body at `:`; the parser ends it at `:''`.
  `cat <<:''\n:\n${P}\n:''`,
  `cat <<EOF''\nEOF\n${P}\nEOF''`,
  `cat <<E"O"F\nEOF\n${P}\nE"O"F`,
  `cat <<'E'OF\nEOF\n${P}\n'E'OF`,
  `cat <<\\EOF\nEOF\n${P}\n\\EOF`,
  `cat <<$X\n$X\n${P}\n$X`,
  `cat <<$X;\n$X;\n${P}\n$X;`,
  `cat <<"$X"\n$X\n${P}\n"$X"`,
  `cat <<EOF\n\\\nEOF\n${P}\nEOF`,
  `cat <<-:''\n\t:\n${P}\n\t:''`,
  `cat <<-EOF''\n\tEOF\n\t${P}\nEOF''`,
  `cat <<EOF | cat\nEOF\n${P}\nEOF`,
  `cat <<:'' && ls\n:\n${P}\n:''`,
];

const BASH_SEMANTICS = [
  // `{name}>file` assigns a descriptor to a name, evaluating an array subscript (finding 2).
  `echo {a['$(${P})']}>/dev/null`,
  `true {a['$(${P})']}>/dev/null`,
  `false {a['$(${P})']}>/dev/null`,
  `test {a['$(${P})']}>/dev/null`,
  `: {a['$(${P})']}>/dev/null`,
  `echo {a[$(${P})]}>/dev/null`,
  `echo x {a['\`${P}\`']}<&0`,
  // In `[ … ]` the parser reads `>`, `||`, `&&` as test operators; bash as a redirection, a list.
  `echo && [ a > ${MARKER} ]`,
  `echo && [ -f nowhere || ${P} ]`,
  `echo && [ -n x -a ! -f nowhere || ${P} ]`,
  `echo; [ x != y || ${P} ]`,
];

const WRAPPER_LINES = [
  `bash --rcfile ${PLANTED} -ic ls`,
  `bash --init-file ${PLANTED} -ic ls`,
  `bash -ic ls`,
  `bash -lc ls`,
  `bash -kc 'bash -c ls BASH_ENV=${PLANTED}'`,
  `bash -k -c 'ls BASH_ENV=${PLANTED}'`,
  `bash -O extglob -c ls`,
  `printf '; ${P}' | xargs -I X bash -c 'ls X'`,
  `printf '; ${P}' | xargs -i bash -c 'ls {}'`,
  `printf '; ${P}' | xargs --replace=X bash -c 'ls X'`,
  `printf '; ${P}' | xargs --rep=X bash -c 'ls X'`,
  `printf x | xargs --process-slot-var=BASH_ENV bash -c ls`,
  `printf x | xargs --process-s=BASH_ENV bash -c ls`,
  `printf '${P}' | xargs bash -c`,
  `printf '${P}' | xargs sh -c`,
  `env -S '${P}'`,
  `env --split-string='${P}'`,
  `env --sp='${P}'`,
  `env -C ${outside} ls`,
  `zsh -c 'ls'`,
  // A shell given a script file or its input runs commands no policy read (found by the fuzz).
  `bash ${PLANTED}`,
  'bash planted.sh',
  `sh -e ${PLANTED}`,
  `bash -a ${PLANTED} -c 'ls X'`,
  `bash <<EOF\n${P}\nEOF`,
  `printf '${P}' | bash`,
  `bash -c 'bash planted.sh'`,
  `sh -c 'cat <<:""\n:\n${P}\n:""'`,
  `bash -c "bash -c 'cat <<:\\"\\"\n:\n${P}\n:\\"\\"'"`,
];

/** A here-document trick inside a nested script: the nested script is rebuilt too (it runs, as data). */
const NESTED_LINES = [`bash -c 'cat <<:""\n:\n${P}\n:""'`, `timeout 5 bash -c 'cat <<:""\n:\n${P}\n:""'`];

describe('issue #29 §1: parser differential — here-documents run as the body the policy saw', () => {
  for (const backend of ['host', 'session'] as const) {
    it(`${backend}: none of ${HEREDOC_LINES.length} delimiter tricks runs the hidden line`, async () => {
      const g = gate(READ_ONLY, backend);
      for (const line of HEREDOC_LINES) {
        const result = await run(g, line);
        expect(existsSync(MARKER), `${backend}: ${JSON.stringify(line)} → ${result.content}`).toBe(false);
      }
    });
  }

  it('the first finding now runs, as data: cat prints the hidden line instead of bash running it', async () => {
    for (const backend of ['host', 'session'] as const) {
      const result = await run(gate(READ_ONLY, backend), HEREDOC_LINES[0] as string);
      expect(result.ok, result.content).toBe(true);
      expect(result.content).toContain(`:\n${P}`);
      expect(existsSync(MARKER)).toBe(false);
    }
  });

  it('a session shell gets no function defined by hidden lines, which later allowed calls would run', async () => {
    const g = gate({ allow: ['ls', 'cat'] }, 'session');
    await run(g, `cat <<:''\n:\nls() { ${P}; }\n:''`);
    const later = await run(g, 'ls');
    expect(later.ok, later.content).toBe(true);
    expect(existsSync(MARKER)).toBe(false);
  });

  it('what a person approved runs as they saw it: the same here-document is read by bash then', async () => {
    const g = gate({}, 'host', approveAll);
    const result = await run(g, `cat <<'EOF'\nbody\nEOF\necho after`);
    expect(result.ok, result.content).toBe(true);
    expect(result.content).toBe('body\nafter\n');
  });
});

describe('issue #29 §2: bash semantics the analyzer does not model never run unasked', () => {
  for (const backend of ['host', 'session'] as const) {
    it(`${backend}: {name}> redirections with subscripts (${BASH_SEMANTICS.length} lines)`, async () => {
      const g = gate(ECHO, backend);
      for (const line of BASH_SEMANTICS) {
        const result = await run(g, line);
        expect(existsSync(MARKER), `${backend}: ${line} → ${result.content}`).toBe(false);
      }
    });
  }
});

describe('issue #29 §3: wrappers are looked through only with known options and a fixed command', () => {
  for (const backend of ['host', 'session'] as const) {
    it(`${backend}: rc files, -i/-l/-k, xargs -I and unknown options ask (${WRAPPER_LINES.length} lines)`, async () => {
      const g = gate(LS_BASH, backend);
      for (const line of WRAPPER_LINES) {
        const result = await run(g, line);
        expect(existsSync(MARKER), `${backend}: ${line} → ${result.content}`).toBe(false);
        expect(result.ok, `${line} ran unasked: ${result.content}`).toBe(false);
      }
    });
  }

  it('a here-document trick in a nested bash -c runs as data: the nested script is rebuilt too', async () => {
    for (const backend of ['host', 'session'] as const) {
      const g = gate({ ...LS_BASH, allow: [...LS_BASH.allow, 'cat', 'timeout'] }, backend);
      for (const line of NESTED_LINES) {
        const result = await run(g, line);
        expect(existsSync(MARKER), `${backend}: ${line} → ${result.content}`).toBe(false);
        expect(result.ok, `${line}: ${result.content}`).toBe(true);
        expect(result.content).toContain(P);
      }
    }
  });

  it('a script file runs unasked only under a rule that names it (allow = ["sh planted.sh"])', async () => {
    const named = await run(gate({ allow: ['sh planted.sh'] }, 'host'), 'sh planted.sh');
    expect(named.ok, named.content).toBe(true);
    expect(existsSync(MARKER)).toBe(true); // the named script is what the person allowed
    rmSync(MARKER, { force: true });
    for (const line of ['sh other.sh', 'bash planted.sh', 'sh -e planted.sh']) {
      const result = await run(gate({ allow: ['sh planted.sh', 'sh'] }, 'host'), line);
      expect(result.ok, `${line}: ${result.content}`).toBe(false);
    }
    expect(existsSync(MARKER)).toBe(false);
  });

  it('benign wrapped commands still run unasked (the suite cannot pass by asking for everything)', async () => {
    const g = gate(LS_BASH, 'host');
    for (const line of [
      'bash -c "ls | wc -l"',
      'bash -euo pipefail -c "ls"',
      'printf "a\\nb\\n" | xargs -n 1 echo',
      'timeout 5 ls',
      'env LANG=C ls',
      'nice -n 5 ls',
    ]) {
      const result = await run(g, line);
      expect(result.ok, `${line}: ${result.content}`).toBe(true);
    }
  });

  it("a timeout wrapper's child, in a process group of its own, does not outlive the call", async () => {
    const g = gate({}, 'host', approveAll); // the process's life is the point here, not the policy
    const pidFile = path.join(root, 'timeout-child.pid');
    rmSync(pidFile, { force: true });
    const result = await run(g, `timeout 60 bash -c 'echo $$ > timeout-child.pid; exec sleep 60'`, 500);
    expect(result.ok).toBe(false); // stopped by the call's own timeout
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    expect(pid).toBeGreaterThan(0);
    // The call's result comes after its session was swept: the child is gone (or a zombie) by now.
    expect(alive(pid), `timeout's child ${pid} outlived the call`).toBe(false);
  });

  it("SIGKILL to toolgate: the guard kills the whole session, timeout's child included", async () => {
    const project = makeTempDir('toolgate-exact-life-');
    const configFile = path.join(makeTempDir('toolgate-exact-cfg-'), 'toolgate.toml');
    writeFileSync(configFile, '[tools.approval]\ndenylist = []\n');
    const child = spawn(
      process.execPath,
      [
        path.join(REPO, 'bin/toolgate.js'),
        'exec',
        '--no-journal',
        '--approve',
        'all',
        '--config',
        configFile,
        '--root',
        project,
      ],
      {
        cwd: project,
        stdio: ['pipe', 'ignore', 'ignore'],
      },
    );
    const pidFile = path.join(project, 'pid');
    child.stdin.end(
      JSON.stringify([
        {
          id: '1',
          name: 'run_command',
          arguments: { command: `timeout 300 bash -c 'echo $$ > pid; exec sleep 300'` },
        },
      ]),
    );
    expect(await waitFor(() => existsSync(pidFile) && Number(readFileSync(pidFile, 'utf8')) > 0)).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    expect(alive(pid)).toBe(true);
    child.kill('SIGKILL');
    expect(await waitFor(() => !alive(pid)), `timeout's child ${pid} outlived toolgate`).toBe(true);
  });
});

/**
 * The rebuilt form means to bash exactly what the analyzer judged: for generated lines of simple
 * commands, each program is replaced by a function that writes its arguments out, the rebuilt line
 * is run by the real bash, and the argument lists bash passed must equal the analyzer's.
 */
describe('issue #29: bash reads the rebuilt form as the analyzer judged it (differential, real bash)', () => {
  const atom = fc.oneof(
    fc.constantFrom(
      'a',
      'b c',
      "it's",
      '"q"',
      '$HOME',
      '`x`',
      '$(x)',
      '\\',
      '*',
      ';',
      '&&',
      '\n',
      '{a,b}',
      '~',
      "'",
      '',
    ),
    fc.string({ maxLength: 6 }),
  );
  const quoted = atom.map((s) => `'${s.replace(/'/g, `'\\''`)}'`);
  const dquoted = atom.map((s) => `"${s.replace(/["\\$`]/g, '\\$&')}"`);
  const escaped = atom.map((s) => s.replace(/[^A-Za-z0-9]/g, (c) => (c === '\n' ? "$'\\n'" : `\\${c}`)));
  const ansi = fc.constantFrom("$'a\\tb'", "$'\\x41\\''", "$'line\\nnext'", "$'\\u00e9'");
  const word = fc.oneof(
    quoted,
    dquoted,
    escaped,
    ansi,
    fc.constantFrom('plain', '-x', '--opt=v', '0', 'a=b'),
  );
  const command = fc.tuple(fc.constantFrom('p1', 'p2'), fc.array(word, { maxLength: 4 }));
  const line = fc
    .array(fc.tuple(command, fc.constantFrom(' ; ', ' && ', ' || ', ' | ', '\n')), {
      minLength: 1,
      maxLength: 3,
    })
    .map((parts) =>
      parts
        .map(([[name, args], sep], i) => `${name} ${args.join(' ')}${i < parts.length - 1 ? sep : ''}`)
        .join(''),
    );
  const dump = (name: string) => `${name}() { printf '%s\\0' ${name} "$#" "$@"; }`;

  /** The argv lists the shell passed to p1/p2 when it ran `rebuilt`. */
  const argvAsRun = (shell: string, rebuilt: string): string[][] => {
    const out = spawnSync(shell, ['-c', `${dump('p1')}; ${dump('p2')}; ${rebuilt}`], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent' },
    });
    const fields = out.stdout.split('\0');
    const seen: string[][] = [];
    let i = 0;
    while (i < fields.length - 1) {
      const count = Number(fields[i + 1]);
      seen.push([fields[i] as string, ...fields.slice(i + 2, i + 2 + count)]);
      i += 2 + count;
    }
    return seen;
  };

  for (const [shell, dialect] of [
    ['/bin/bash', 'bash'],
    ['/bin/dash', 'posix'],
  ] as const) {
    it(`Property: argv as ${shell} runs the rebuilt line = argv as the analyzer judged it`, () => {
      fc.assert(
        fc.property(line, (text) => {
          const facts = analyzeCommand(text, 0, dialect);
          if (facts.rebuilt === undefined) return; // asks: runs only as a person saw it
          const seen = argvAsRun(shell, facts.rebuilt);
          // The first command always runs; later ones may be skipped by `&&`/`||`.
          expect(seen.length, `${JSON.stringify(text)} → ${facts.rebuilt}`).toBeGreaterThan(0);
          const judged = facts.commands.map((c) => JSON.stringify(c.argv));
          for (const argv of seen)
            expect(judged, `${JSON.stringify(text)} → ${facts.rebuilt}`).toContain(JSON.stringify(argv));
        }),
        { numRuns: 300, seed: 29 },
      );
    });
  }

  it('Property: the rebuilt form is a fixed point (rebuilding it again changes nothing)', () => {
    fc.assert(
      fc.property(line, (text) => {
        const first = analyzeCommand(text).rebuilt;
        if (first === undefined) return;
        expect(analyzeCommand(first).rebuilt).toBe(first);
      }),
      { numRuns: 300, seed: 2929 },
    );
  });
});

describe('issue #29 §5: every git a command starts runs without the programs a config names, judged at exec time', () => {
  for (const backend of ['host', 'session'] as const) {
    it(`${backend}: a config written by an earlier call of the same batch is not obeyed by the next`, async () => {
      const repo = makeTempDir('toolgate-exact-git-');
      const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
      git('init', '-q');
      writeFileSync(path.join(repo, 'a.txt'), 'a\n');
      git('add', 'a.txt');
      git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'x');
      writeFileSync(path.join(repo, 'a.txt'), 'changed\n');
      const evil = path.join(repo, 'evil.sh');
      writeFileSync(evil, `#!/bin/sh\n${P}\n`);
      chmodSync(evil, 0o755);
      const g = createToolgate({
        config: validateConfig({
          tools: {
            approval: { denylist: [] },
            run_command: { auto_allow_read_only: true },
            ...(backend === 'session' ? { shell: { backend: 'session' } } : {}),
          },
        }),
        roots: [repo],
        approver: approveAll, // approves what asks: the config change, never the git status after it
      });
      gates.push(g);
      const results = await g.execute([
        {
          id: 'write',
          name: 'run_command',
          arguments: { command: `git config core.fsmonitor ${evil} && git config diff.external ${evil}` },
        },
        { id: 'status', name: 'run_command', arguments: { command: 'git status --short' } },
        { id: 'diff', name: 'run_command', arguments: { command: 'git diff --stat' } },
      ]);
      expect(
        results.map((r) => r.ok),
        JSON.stringify(results.map((r) => r.content)),
      ).toEqual([true, true, true]);
      expect(results[1]?.content).toContain('a.txt');
      expect(existsSync(MARKER), 'git ran the program the earlier call configured').toBe(false);
    });
  }
});

describe('issue #29 §5: the session shell keeps no git steering of its own between commands', () => {
  it('a GIT_DIR an earlier approved command exported in the session does not steer the next git', async () => {
    const repo = makeTempDir('toolgate-exact-git-session-');
    spawnSync('git', ['init', '-q'], { cwd: repo });
    writeFileSync(path.join(repo, 'a.txt'), 'a\n');
    const g = createToolgate({
      config: validateConfig({
        tools: {
          approval: { denylist: [] },
          run_command: { auto_allow_read_only: true },
          shell: { backend: 'session' },
        },
      }),
      roots: [repo],
      approver: approveAll, // approves the export, which asks; git status runs unasked
    });
    gates.push(g);
    const [exported] = await g.execute([
      {
        id: 'e',
        name: 'run_command',
        arguments: { command: `export GIT_DIR=${outside}/elsewhere GIT_WORK_TREE=/` },
      },
    ]);
    expect(exported?.ok, exported?.content).toBe(true);
    const [status] = await g.execute([
      { id: 's', name: 'run_command', arguments: { command: 'git status --short' } },
    ]);
    expect(status?.ok, status?.content).toBe(true);
    expect(status?.content).toContain('a.txt');
    // An approved command that tries to switch the neutralisation off for the commands after it:
    // the shell's env function is read-only, and the next command sets everything again.
    const evil = path.join(repo, 'evil.sh');
    writeFileSync(evil, `#!/bin/sh\n/usr/bin/${P}\n`);
    chmodSync(evil, 0o755);
    const [tamper] = await g.execute([
      {
        id: 't',
        name: 'run_command',
        arguments: {
          command: `git config core.fsmonitor ${evil}; for f in $(declare -F | grep -o '__tg_env_[0-9a-f]*'); do eval "$f() { :; }"; unset -f "$f"; done; export GIT_CONFIG_PARAMETERS= GIT_CONFIG_COUNT=0`,
        },
      },
    ]);
    expect(tamper?.content).toMatch(/readonly function/);
    const [after] = await g.execute([
      { id: 'a', name: 'run_command', arguments: { command: 'git status --short' } },
    ]);
    expect(after?.ok, after?.content).toBe(true);
    expect(existsSync(MARKER), 'the tampered shell ran the repository fsmonitor').toBe(false);
  });
});

/**
 * The hostile review of the rebuilt form (issue #29): what the judged command does must be what
 * was judged — wrappers after xargs, printf %n, $((…)) as a path, `..` in a program path, exec -a,
 * and a session shell's leftovers in a process group of their own.
 */
describe('issue #29: the hostile review of exact execution', () => {
  const repo = makeTempDir('toolgate-exact-review-');
  const secret = 'REVIEW-SECRET-CONTENT';
  beforeAll(() => {
    for (const dir of ['evil', '0', '2']) {
      spawnSync('mkdir', ['-p', path.join(repo, dir)]);
      for (const name of ['ls', 'cat', 'echo']) {
        // An absolute touch: PATH is what these lines try to change.
        writeFileSync(path.join(repo, dir, name), `#!/bin/sh\n/usr/bin/${P}\n`);
        chmodSync(path.join(repo, dir, name), 0o755);
      }
    }
    writeFileSync(path.join(repo, 'id_ed25519'), `${secret}\n`);
    writeFileSync(path.join(outside, 'secret.txt'), `${secret}\n`);
    spawnSync('ln', ['-s', path.join(outside, 'secret.txt'), path.join(repo, '9')]);
    spawnSync('ln', ['-s', '/etc/passwd', path.join(repo, '7')]);
  });
  const reviewGate = (runCommand: Record<string, unknown>, backend: 'host' | 'session') =>
    gate(runCommand, backend, denyAll, [repo]);

  const LINES = [
    ...[
      'env',
      'env -i',
      'env --',
      'nice',
      'nice -n 5',
      'nohup',
      'timeout 5',
      'stdbuf -oL',
      'ionice',
      'time -p',
      'xargs',
      'xargs -0',
    ].map((w) => `echo /usr/bin/touch ${MARKER} | xargs ${w}`),
    `xargs xargs <<< '${P}'`,
    `xargs env <<< '${P}'`,
    "printf 'ab%n' PATH; ls",
    "printf '%n' PATH && cat a.txt",
    "printf '%5n' PATH; ls",
    'printf %n HOME; git status --short',
    'cat id_ed$((25519))',
    'cat $((7))',
    'head -n 3 $((9))',
    'xargs -a $((9)) echo',
    `/usr/bin/../..${repo}/evil/ls`,
    `/usr/local/bin/../../..${repo}/evil/cat a.txt`,
    `/usr/bin//../..${repo}/evil/echo hi`,
    'exec -a -bash bash -c ls',
    'exec -l bash -c ls',
    'exec -a ls bash -c ls',
    'bash -a -c ls',
  ];
  for (const backend of ['host', 'session'] as const) {
    it(`${backend}: none of ${LINES.length} lines runs anything unjudged or shows a secret`, async () => {
      for (const config of [{ auto_allow_read_only: true }, { allow: ['echo', 'printf', 'git status'] }]) {
        const g = reviewGate(config, backend);
        for (const line of LINES) {
          const result = await run(g, line);
          expect(
            existsSync(MARKER),
            `${backend} ${JSON.stringify(config)}: ${line} → ${result.content}`,
          ).toBe(false);
          expect(result.content, line).not.toContain(secret);
          expect(result.content, line).not.toMatch(/root:x:0:0/);
        }
      }
    });
  }

  it('exec -a -NAME and exec -l (a login shell reads profiles) ask: a profile in HOME is never read unasked', async () => {
    const home = makeTempDir('toolgate-exact-home-');
    writeFileSync(path.join(home, '.bash_profile'), `/usr/bin/${P}\n`);
    const before = process.env.HOME;
    process.env.HOME = home;
    try {
      const g = reviewGate({ auto_allow_read_only: true, allow: ['bash'] }, 'host');
      for (const line of ['exec -a -bash bash -c ls', 'exec -l bash -c ls', 'exec -la x bash -c ls']) {
        const result = await run(g, line);
        expect(existsSync(MARKER), `${line} → ${result.content}`).toBe(false);
      }
      // The profile does fire when a person approves a login shell: the test can fail.
      const approved = createToolgate({
        config: validateConfig({ tools: { approval: { denylist: [] } } }),
        roots: [repo],
        approver: approveAll,
      });
      gates.push(approved);
      await run(approved, 'exec -a -bash bash -c true');
      expect(existsSync(MARKER)).toBe(true);
      rmSync(MARKER, { force: true });
    } finally {
      process.env.HOME = before;
    }
  });

  it('session: a process a command left in a group of its own is gone before the next call', async () => {
    const g = reviewGate({ auto_allow_read_only: true, allow: ['timeout', 'bash', ':'] }, 'session');
    const tag = `toolgate-review-${process.pid}-${Date.now()}`;
    const first = await run(g, `timeout 60 bash -c 'while true; do true; done; : ${tag}' >/dev/null 2>&1 &`);
    expect(first.ok, first.content).toBe(true);
    await run(g, 'true');
    const left = liveWith(tag);
    expect(left, 'a leftover outlived its call').toEqual([]);
  });
});

describe('issue #29 §5, second review: a repository alias cannot turn git settings back on', () => {
  for (const [alias, value, command, allow] of [
    ['alias.st', `-c core.fsmonitor=/usr/bin/touch\\ ${MARKER} status`, 'git st', ['git st']],
    ['alias.sx', `--config-env=core.fsmonitor=EVIL_FSM status`, 'git sx', ['git sx']],
    ['alias.x.y', `!/usr/bin/${P}`, 'git x.y', ['git x.y']],
  ] as const) {
    it(`${alias} = ${value.slice(0, 30)}…: ${command} runs no program the repository named`, async () => {
      rmSync(MARKER, { force: true }); // each case proves itself
      const repo = makeTempDir('toolgate-exact-alias-');
      spawnSync('git', ['init', '-q'], { cwd: repo });
      writeFileSync(path.join(repo, 'a.txt'), 'a\n');
      spawnSync('git', ['config', alias, value], { cwd: repo });
      const g = gate({ allow: [...allow] }, 'host', approveAll, [repo]);
      const result = await run(g, command);
      expect(existsSync(MARKER), `${command} → ${result.content}`).toBe(false);
    });
  }
});

describe('issue #29 §4, second review: an allow rule for a git subcommand does not cover what the rule does not say', () => {
  it('allow = ["git diff", "git log"]: --no-index, --output and history with contents ask; the plain forms run', async () => {
    const repo = makeTempDir('toolgate-exact-gitallow-');
    const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
    git('init', '-q');
    for (const dir of ['d', 'e']) spawnSync('mkdir', ['-p', path.join(repo, dir)]);
    writeFileSync(path.join(repo, 'd', 'k.key'), 'KEYSECRET\n');
    writeFileSync(path.join(repo, 'old.pem'), 'PEMSECRET\n');
    writeFileSync(path.join(repo, 'a.txt'), 'a\n');
    git('add', 'old.pem', 'a.txt');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'x');
    git('rm', '-q', 'old.pem');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'y');
    const g = gate({ allow: ['git diff', 'git log'] }, 'host', denyAll, [repo]);
    for (const line of [
      'git diff --no-index e d',
      'git diff --no-index -- e d',
      'git log -p --all',
      'git log --patch',
      'git log --pat',
      'git log -U1',
      'git log -1 --format=x --output=Makefile',
      'git diff --output=o.txt HEAD~1',
      'git diff --outp=o.txt HEAD~1',
    ]) {
      const result = await run(g, line);
      expect(result.ok, `${line}: ${result.content}`).toBe(false);
      expect(result.content).not.toMatch(/KEYSECRET|PEMSECRET/);
    }
    expect(existsSync(path.join(repo, 'Makefile'))).toBe(false);
    expect(existsSync(path.join(repo, 'o.txt'))).toBe(false);
    for (const line of ['git log --oneline', 'git diff --stat HEAD~1', 'git diff']) {
      const result = await run(g, line);
      expect(result.ok, `${line}: ${result.content}`).toBe(true);
    }
  });
});
