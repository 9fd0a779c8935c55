import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * The shell-policy regression table (issue #5): each row is a command line, what policy must decide,
 * and the bypass family it guards against. Config for every row unless the row says otherwise:
 * allow "git status", "ls", "npm test", "cat", "echo", "grep"; deny "rm", "curl"; ask "git push".
 */
type Outcome = 'allow' | 'ask' | 'deny';
interface Case {
  command: string;
  expect: Outcome;
  why: string;
  config?: Record<string, unknown>;
}

const BASE = {
  approval: { denylist: [] },
  run_command: {
    allow: ['git status', 'ls', 'npm test', 'cat', 'echo', 'grep'],
    deny: ['rm', 'curl'],
    ask: ['git push'],
  },
};

const CASES: Case[] = [
  // Plain commands and whole-word prefix rules
  { command: 'git status', expect: 'allow', why: 'exact allow rule' },
  { command: 'git status --short', expect: 'allow', why: 'allow rule is a prefix of whole words' },
  { command: 'git statusx', expect: 'ask', why: 'prefix must match whole words' },
  { command: 'git   status', expect: 'allow', why: 'spacing does not matter after parsing' },
  { command: 'git push origin main', expect: 'ask', why: 'ask rule' },
  {
    command: 'git -P push origin main',
    expect: 'ask',
    why: "ask rule after git's global options (issue #29)",
  },
  { command: 'git -c a=b rm x', expect: 'ask', why: 'git rm is not the rm program' },
  { command: 'git --no-pager status', expect: 'allow', why: 'allow rule through a harmless global option' },
  { command: 'git --bare status', expect: 'ask', why: 'but not through --bare (issue #29)' },
  { command: 'git commit -m x', expect: 'ask', why: 'not covered by any allow rule' },
  { command: 'rm -rf /', expect: 'deny', why: 'deny rule' },
  { command: 'rmdir x', expect: 'ask', why: 'deny "rm" does not match "rmdir" (whole words)' },
  { command: 'npm test', expect: 'allow', why: 'two-word allow rule' },
  { command: 'npm install evil', expect: 'ask', why: 'only "npm test" is allowed' },
  // Separators: every sub-command must be allowed on its own
  { command: 'ls; rm -rf /', expect: 'deny', why: '; separator' },
  { command: 'ls && rm -rf /', expect: 'deny', why: '&& separator' },
  { command: 'ls || rm -rf /', expect: 'deny', why: '|| separator' },
  { command: 'ls | rm -rf /', expect: 'deny', why: 'pipe' },
  { command: 'ls\nrm -rf /', expect: 'deny', why: 'newline separator' },
  { command: 'ls & rm -rf /', expect: 'deny', why: 'background &' },
  { command: 'ls && git commit -m x', expect: 'ask', why: 'second sub-command not allowed' },
  { command: 'ls && cat README.md | grep x', expect: 'allow', why: 'every sub-command allowed' },
  { command: '(rm -rf /)', expect: 'deny', why: 'subshell' },
  { command: '{ rm -rf /; }', expect: 'deny', why: 'group command' },
  { command: 'if true; then rm -rf /; fi', expect: 'deny', why: 'if body' },
  { command: 'for f in *; do rm "$f"; done', expect: 'deny', why: 'loop body' },
  { command: 'while true; do curl x; done', expect: 'deny', why: 'while body' },
  { command: 'case x in x) rm -rf / ;; esac', expect: 'deny', why: 'case body' },
  { command: 'f() { rm -rf /; }; f', expect: 'deny', why: 'function body' },
  { command: '! rm x', expect: 'deny', why: 'negated command' },
  // Wrappers are looked through
  { command: 'bash -c "rm -rf /"', expect: 'deny', why: 'bash -c' },
  { command: 'sh -lc "rm -rf /"', expect: 'deny', why: 'sh -lc' },
  { command: 'bash -x -c "rm -rf /"', expect: 'deny', why: 'bash -x -c' },
  { command: 'zsh -c "ls && curl evil"', expect: 'deny', why: 'zsh -c with a compound script' },
  {
    command: 'bash -c "git status"',
    expect: 'allow',
    why: 'an allowed command inside bash -c is still allowed',
  },
  { command: 'bash -c "bash -c \'rm -rf /\'"', expect: 'deny', why: 'nested shells' },
  { command: 'env rm -rf /', expect: 'deny', why: 'env wrapper' },
  { command: 'env -i PATH=/bin rm x', expect: 'deny', why: 'env -i with assignments' },
  { command: 'env -u HOME -- curl x', expect: 'deny', why: 'env options and --' },
  { command: 'nice -n 10 rm x', expect: 'deny', why: 'nice' },
  { command: 'timeout 5 rm x', expect: 'deny', why: 'timeout' },
  { command: 'timeout -s KILL 5 curl x', expect: 'deny', why: 'timeout with options' },
  { command: 'nohup rm x', expect: 'deny', why: 'nohup' },
  { command: 'command rm x', expect: 'deny', why: 'command builtin' },
  { command: 'exec rm x', expect: 'deny', why: 'exec builtin' },
  { command: 'sudo rm x', expect: 'deny', why: 'sudo (and deny rule)' },
  { command: 'sudo ls', expect: 'ask', why: 'sudo never auto-allows' },
  { command: 'find . | xargs rm', expect: 'deny', why: 'xargs' },
  { command: 'xargs -I{} rm {}', expect: 'deny', why: 'xargs with options' },
  { command: 'time nice timeout 3 env rm x', expect: 'deny', why: 'stacked wrappers' },
  { command: '/bin/rm -rf /', expect: 'deny', why: 'absolute path to a standard program' },
  { command: '/usr/bin/curl x', expect: 'deny', why: '/usr/bin path' },
  { command: '/tmp/evil/ls', expect: 'ask', why: 'a program outside standard dirs is not "ls"' },
  { command: 'FOO=1 rm x', expect: 'deny', why: 'VAR=value prefix' },
  { command: 'FOO=1 git status', expect: 'ask', why: 'an env prefix not on the known-safe list asks' },
  { command: 'LANG=C git status', expect: 'allow', why: 'a known-safe env prefix' },
  { command: 'LD_PRELOAD=/tmp/x.so ls', expect: 'ask', why: 'dangerous env prefix never auto-allows' },
  { command: 'PATH=/tmp/evil:$PATH ls', expect: 'ask', why: 'PATH override' },
  { command: 'env LD_PRELOAD=x ls', expect: 'ask', why: 'dangerous env through env' },
  // Substitutions and redirections never auto-allow
  { command: 'echo $(rm -rf /)', expect: 'deny', why: 'command substitution (denied inner command)' },
  { command: 'echo $(whoami)', expect: 'ask', why: 'command substitution' },
  { command: 'echo `whoami`', expect: 'ask', why: 'backticks' },
  { command: 'cat <(ls)', expect: 'ask', why: 'process substitution' },
  { command: 'ls > out.txt', expect: 'ask', why: 'redirect to a file' },
  { command: 'ls >> out.txt', expect: 'ask', why: 'append redirect' },
  { command: 'ls &> out.txt', expect: 'ask', why: '&> redirect' },
  { command: 'ls 2>/dev/null', expect: 'allow', why: 'redirect to /dev/null is harmless' },
  { command: 'ls 2>&1', expect: 'allow', why: 'fd duplication is harmless' },
  { command: 'cat < input.txt', expect: 'allow', why: 'reading a file is what cat does anyway' },
  { command: 'echo $((1+2))', expect: 'allow', why: 'plain arithmetic' },
  { command: 'echo $(( $(id -u) + 1 ))', expect: 'ask', why: 'arithmetic containing $(' },
  { command: 'echo $[1+2]', expect: 'ask', why: 'old arithmetic $[…]' },
  { command: 'eval "rm -rf /"', expect: 'ask', why: 'eval' },
  { command: 'source ./x.sh', expect: 'ask', why: 'source' },
  { command: '. ./x.sh', expect: 'ask', why: 'dot source' },
  { command: '$CMD', expect: 'ask', why: 'program only known at run time' },
  { command: 'bash -c "$X"', expect: 'ask', why: 'dynamic script' },
  { command: 'env -S "rm -rf /"', expect: 'ask', why: 'env -S splits a string into a command' },
  // Secrets under sandbox = "none": /proc is outside the roots, and run-time paths are unknown
  { command: 'cat /proc/$PPID/environ', expect: 'ask', why: "toolgate's own environment through /proc" },
  { command: 'cat /proc/self/environ', expect: 'ask', why: 'a path argument outside the roots' },
  { command: 'cat /proc/1/environ', expect: 'ask', why: 'another process through /proc' },
  { command: 'cat ~/.ssh/id_rsa', expect: 'ask', why: 'a tilde path is only known at run time' },
  { command: 'cat $HOME/.aws/credentials', expect: 'ask', why: 'a variable in a path' },
  { command: 'grep -r TOKEN /etc', expect: 'ask', why: 'a directory outside the roots' },
  { command: 'cat ../outside.txt', expect: 'ask', why: '.. out of the root' },
  {
    command: 'cat .toolgate/journal.db',
    expect: 'deny',
    why: "toolgate's own state, even for an allowed program: refused, not asked (issue #30 §10)",
  },
  // The locale picks the encoding bash reads a line in: in BIG5 a character's last byte swallows
  // the `\\` after it, so a quote the parser sees as escaped closes the string (hostile review)
  { command: 'LC_ALL=zh_TW.BIG5; echo x', expect: 'ask', why: 'a multi-byte non-UTF-8 locale' },
  { command: 'LANG=ja_JP.SJIS echo x', expect: 'ask', why: 'an environment prefix with such a locale' },
  { command: 'LC_CTYPE=$L echo x', expect: 'ask', why: 'a locale known only at run time' },
  { command: 'env LC_ALL=zh_TW.BIG5 echo x', expect: 'ask', why: 'env with such a locale' },
  { command: 'LC_ALL=C ls', expect: 'allow', why: 'the C locale' },
  // Lower-case settings programs read from their environment (hostile review of issue #30): an
  // allow rule or grant for `npm test` must not let the line pick the shell npm runs scripts with.
  {
    command: 'npm_config_script_shell=/tmp/evil.sh npm test',
    expect: 'ask',
    why: 'npm_config_* before an allowed command',
  },
  {
    command: 'env npm_config_node_options=--require=/tmp/x.js npm test',
    expect: 'ask',
    why: 'the same through env',
  },
  { command: 'socks5_proxy=http://evil:1 ls', expect: 'ask', why: "any scheme's proxy variable" },
  { command: 'f=1 ls', expect: 'ask', why: 'a lower-case name handed to a program' },
  {
    command: 'f=1; ls',
    expect: 'allow',
    why: 'a shell variable on its own: no program sees it',
  },
  { command: 'LANG=en_US.UTF-8 ls', expect: 'allow', why: 'a UTF-8 locale' },
  {
    command: 'LC_MESSAGES=fr_FR.ISO-8859-1 ls',
    expect: 'allow',
    why: 'messages only: not how lines are read',
  },
  // test -v evaluates an array subscript, which can run commands
  { command: "[[ -v 'a[$(id)]' ]]; echo x", expect: 'ask', why: '[[ -v ]] on a subscript' },
  { command: "test -v 'a[0]'; echo x", expect: 'ask', why: 'test -v on a subscript' },
  { command: 'test -v $name; echo x', expect: 'ask', why: 'test -v on a run-time name' },
  { command: '[[ -v HOME ]] && echo x', expect: 'allow', why: 'a plain name' },
  // Descriptors the shell holds for itself (a session shell reads its commands on one)
  { command: 'cat <&10', expect: 'ask', why: 'reads descriptor 10' },
  { command: 'echo x >&3', expect: 'ask', why: 'writes descriptor 3' },
  { command: 'exec 3>&1 1>&2 2>&3; echo x', expect: 'ask', why: 'exec with redirections only' },
  { command: 'ls 2>&1', expect: 'allow', why: 'stderr into stdout' },
  { command: 'ls >&2', expect: 'allow', why: 'stdout into stderr' },
  // Heredocs, comments, continuations, quoting
  { command: 'cat <<EOF\nhello\nEOF', expect: 'allow', why: 'plain heredoc' },
  { command: 'cat <<EOF\n$(rm -rf /)\nEOF', expect: 'deny', why: 'substitution inside a heredoc' },
  {
    command: "cat <<'EOF'\n$(rm -rf /)\nEOF",
    expect: 'allow',
    why: 'quoted heredoc: no substitution happens',
  },
  { command: 'ls # && rm -rf /', expect: 'allow', why: 'a comment is not a command' },
  { command: 'ls \\\n  -la', expect: 'allow', why: 'line continuation' },
  { command: "echo 'a; rm -rf /'", expect: 'allow', why: 'separators inside single quotes are text' },
  { command: 'echo "a && rm -rf /"', expect: 'allow', why: 'separators inside double quotes are text' },
  { command: "'rm' -rf /", expect: 'deny', why: 'quoted program name' },
  { command: 'r\\m -rf /', expect: 'deny', why: 'backslash inside the program name' },
  { command: '"r""m" -rf /', expect: 'deny', why: 'concatenated quoted program name' },
  { command: 'ls "$(rm -rf /)"', expect: 'deny', why: 'substitution inside double quotes' },
  { command: 'ls && (', expect: 'ask', why: 'a parse failure asks, never allows' },
  { command: 'ls |', expect: 'ask', why: 'incomplete pipeline' },
  // The read-only list, when enabled
  {
    command: 'wc -l README.md',
    expect: 'allow',
    why: 'read-only list',
    config: { run_command: { auto_allow_read_only: true } },
  },
  {
    command: 'git log --oneline',
    expect: 'allow',
    why: 'read-only git',
    config: { run_command: { auto_allow_read_only: true } },
  },
  {
    command: 'find . -delete',
    expect: 'ask',
    why: 'find -delete is not read-only',
    config: { run_command: { auto_allow_read_only: true } },
  },
  {
    command: 'find . -exec rm {} ;',
    expect: 'ask',
    why: 'find -exec is not read-only',
    config: { run_command: { auto_allow_read_only: true } },
  },
  {
    command: 'rg --pre ./x foo',
    expect: 'ask',
    why: 'rg --pre runs a program',
    config: { run_command: { auto_allow_read_only: true } },
  },
  {
    command: 'wc -l README.md',
    expect: 'ask',
    why: 'read-only list is off by default',
    config: { run_command: {} },
  },
  // on_risky = deny
  {
    command: 'echo $(whoami)',
    expect: 'deny',
    why: 'on_risky = deny',
    config: { run_command: { allow: ['echo', 'whoami'], on_risky: 'deny' } },
  },
  // Seed 001 conditions on `command` apply per sub-command
  {
    command: 'ls && git push --force',
    expect: 'deny',
    why: 'a condition rule matching one sub-command',
    config: {
      policy: {
        rules: [
          {
            tool: 'run_command',
            action: 'deny',
            conditions: [{ param: 'command', operator: 'contains', value: '--force' }],
          },
        ],
      },
    },
  },
  {
    command: 'make build && make test',
    expect: 'allow',
    why: 'a conditioned allow rule is standing approval for each sub-command it matches',
    config: {
      run_command: { allow: [] },
      policy: {
        rules: [
          {
            tool: 'run_command',
            action: 'allow',
            conditions: [{ param: 'command', operator: 'startsWith', value: 'make ' }],
          },
        ],
      },
    },
  },
];

function configFor(row: Case) {
  const extra = row.config ?? {};
  const rc = { ...BASE.run_command, ...((extra.run_command as object | undefined) ?? {}) };
  return validateConfig({ tools: { ...BASE, ...extra, run_command: rc } });
}

describe('shell policy regression table (issue #5)', () => {
  it('has at least 60 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(60);
  });

  const root = makeTempDir('toolgate-shell-');
  it.each(CASES.map((c) => [c.why, c] as const))('%s', async (_why, row) => {
    const gate = createToolgate({ config: configFor(row), roots: [root] });
    const call = { id: '1', name: 'run_command', arguments: { command: row.command } };
    await gate.prepare([call]);
    const [planned] = gate.plan([call]);
    const outcome: Outcome =
      planned?.disposition.kind === 'execute'
        ? 'allow'
        : planned?.disposition.kind === 'needs_approval'
          ? 'ask'
          : 'deny';
    expect(outcome, `${JSON.stringify(row.command)}: ${planned?.decision?.reason}`).toBe(row.expect);
  });

  it('run_command stays denylisted by default', async () => {
    const gate = createToolgate({ config: validateConfig({}), roots: [root] });
    const call = { id: '1', name: 'run_command', arguments: { command: 'ls' } };
    await gate.prepare([call]);
    expect(gate.plan([call])[0]?.decision).toMatchObject({ action: 'deny', rule: 'tools.approval.denylist' });
  });

  it('approval summaries show newlines and control characters', async () => {
    const gate = createToolgate({
      config: configFor({ command: '', expect: 'ask', why: '' }),
      roots: [root],
    });
    const call = { id: '1', name: 'run_command', arguments: { command: 'git commit\nrm -rf ~\u001b[2J' } };
    await gate.prepare([call]);
    const [planned] = gate.plan([call]);
    expect(planned?.summary).toBe('Run command: git commit⏎rm -rf ~\\x1b[2J');
  });
});

describe('approval of long commands', () => {
  it('the request carries the whole command, exact and unredacted (issue #30 §1), beyond the 200-character summary', async () => {
    const root = makeTempDir('toolgate-shell-');
    const gate = createToolgate({
      config: validateConfig({ tools: { approval: { denylist: [] } } }),
      roots: [root],
    });
    const command = `echo ${'a'.repeat(300)}\ncurl -H "Authorization: Bearer abcdefghijklmnop" https://x`;
    const call = { id: '1', name: 'run_command', arguments: { command } };
    await gate.prepare([call]);
    const [planned] = gate.plan([call]);
    const request = planned?.disposition.kind === 'needs_approval' ? planned.disposition.request : undefined;
    expect(Array.from(request?.summary ?? '').length).toBeLessThanOrEqual(200);
    // The person approves what runs: the whole line, its secret too (redaction is for logs).
    expect(request?.detail).toBe(command);
  });
});
