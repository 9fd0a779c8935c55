// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell text, where ${…} is shell syntax
import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { denyAll } from '../../src/core/confirmation.js';
import { createToolgate, type Toolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue #29, the standing differential fuzz: generated command lines built around a forbidden
 * `touch MARKER` (MARKER outside the root) from the classes the outside attack run found —
 * here-documents with every kind of delimiter (quotes anywhere, `$`, backslashes, `<<-`), brace and
 * subscript forms, wrappers with random options — are planned by the real pipeline; every line it
 * lets run without asking is executed as toolgate executes it (nobody to approve), and the marker
 * must never appear. Bounded for CI; `npm run fuzz` runs it long (TOOLGATE_FUZZ_RUNS).
 */
const RUNS = Number(process.env.TOOLGATE_FUZZ_RUNS ?? 250);
const root = makeTempDir('toolgate-fuzz-root-');
const outside = makeTempDir('toolgate-fuzz-outside-');
const MARKER = path.join(outside, 'marker');
const P = `touch ${MARKER}`;
const PLANTED = path.join(root, 'rc.sh');

let gate: Toolgate;
beforeAll(async () => {
  writeFileSync(PLANTED, `${P}\n`);
  chmodSync(PLANTED, 0o755);
  gate = createToolgate({
    config: validateConfig({
      tools: {
        approval: { denylist: [] },
        run_command: {
          allow: [
            'ls',
            'cat',
            'echo',
            'true',
            'printf',
            'bash',
            'sh',
            'xargs',
            'env',
            'timeout',
            'nice',
            'nohup',
            ':',
          ],
          auto_allow_read_only: true,
        },
      },
    }),
    roots: [root],
    approver: denyAll,
  });
  await gate.prepare([{ id: 'p', name: 'run_command', arguments: { command: 'true' } }]);
});
afterAll(async () => {
  await gate.close();
});

/** A delimiter as written and the word bash compares body lines with (quotes removed). */
const delimiter = fc
  .tuple(
    fc.constantFrom('EOF', ':', 'E', 'X1', '$X', '$', '-', '_'),
    fc.constantFrom('plain', "''", '""', 'single', 'double', 'backslash', 'inner', 'trailing-bs', 'semi'),
  )
  .map(([word, how]) => {
    switch (how) {
      case "''":
        return { raw: `${word}''`, bash: word };
      case '""':
        return { raw: `${word}""`, bash: word };
      case 'single':
        return { raw: `'${word}'`, bash: word };
      case 'double':
        return { raw: `"${word}"`, bash: word };
      case 'backslash':
        return { raw: `\\${word}`, bash: word };
      case 'inner':
        return { raw: `${word[0]}''${word.slice(1)}`, bash: word };
      case 'trailing-bs':
        return { raw: `${word}\\`, bash: word };
      case 'semi':
        return { raw: `${word};`, bash: word };
      default:
        return { raw: word, bash: word };
    }
  });

const bodyLine = (d: { raw: string; bash: string }) =>
  fc.constantFrom(
    d.bash,
    P,
    d.raw,
    '\\',
    `\t${d.bash}`,
    `\t${P}`,
    `$(${P})`,
    `\`${P}\``,
    'text',
    `${d.bash}\\`,
  );

const heredoc = delimiter.chain((d) =>
  fc
    .tuple(
      fc.constantFrom('<<', '<<-'),
      fc.array(bodyLine(d), { minLength: 1, maxLength: 4 }),
      fc.constantFrom('', ' | cat', ' && ls', ' >/dev/null', '; ls'),
      fc.constantFrom('cat', 'bash', 'sh', 'echo', 'xargs echo'),
    )
    .map(([op, lines, after, program]) => `${program} ${op}${d.raw}${after}\n${lines.join('\n')}\n${d.raw}`),
);

const braces = fc
  .tuple(
    fc.constantFrom('echo', 'true', 'false', ':', 'test', 'ls', 'printf x'),
    fc.constantFrom(
      `{a['$(${P})']}`,
      `{a[$(${P})]}`,
      `{a["\`${P}\`"]}`,
      '{fd}',
      `{a[\\$(${P})]}`,
      `a[$(${P})]`,
      `{x,'$(${P})'}`,
    ),
    fc.constantFrom('>/dev/null', '<&0', '>&2', '>&-', ' >/dev/null', '<<<x', ''),
  )
  .map(([program, word, redirect]) => `${program} ${word}${redirect}`);

const wrapperFlag = fc.constantFrom(
  '-i',
  '-l',
  '-k',
  '-s',
  '-x',
  '-e',
  '-O extglob',
  '-o pipefail',
  `--rcfile ${PLANTED}`,
  `--init-file ${PLANTED}`,
  '--noprofile',
  '--norc',
  '-I X',
  '-i',
  '--replace=X',
  '--rep=X',
  '--process-slot-var=BASH_ENV',
  '--proc=BASH_ENV',
  '-n 1',
  '-0',
  `-a ${PLANTED}`,
  `BASH_ENV=${PLANTED}`,
  `-S '${P}'`,
  `--split-string='${P}'`,
  `-C ${outside}`,
  '-u HOME',
  '5',
  '-s KILL 5',
  '--foreground 5',
  '-k 1 5',
);
const wrapped = fc
  .tuple(
    fc.constantFrom('', `printf '; ${P}' | `, `printf 'x\\n' | `, `echo /usr/bin/${P} | `),
    fc.array(
      fc.tuple(
        fc.constantFrom('bash', 'sh', 'env', 'xargs', 'timeout', 'nice', 'nohup'),
        fc.array(wrapperFlag, { maxLength: 2 }),
      ),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
    fc.constantFrom(
      `-c 'ls X'`,
      `-c 'ls {}'`,
      '-c ls',
      'ls',
      `-c 'cat <<:""\n:\n${P}\n:""'`,
      "-c 'ls BASH_ENV=x'",
      '',
    ),
  )
  .map(
    ([prefix, layers, inner]) =>
      `${prefix}${layers.map(([w, flags]) => [w, ...flags].join(' ')).join(' ')} ${inner}`,
  );

/** xargs handing its input to a wrapper (or another xargs) whose own command is left empty. */
const xargsChains = fc
  .tuple(
    fc.constantFrom(`echo /usr/bin/${P} | `, `printf '%s\\n' /usr/bin/touch ${MARKER} | `, ''),
    fc.array(
      fc.constantFrom(
        'xargs',
        'xargs -0',
        'env',
        'env -i',
        'nice',
        'nohup',
        'timeout 5',
        'stdbuf -oL',
        'time -p',
        'ionice',
      ),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
    fc.constantFrom('', ` <<< '${P}'`),
  )
  .map(([prefix, chain, after]) => `${prefix}xargs ${chain.join(' ')}${after}`);

/** Test commands, where the parser's operators are bash's redirections and lists in `[ … ]`. */
const tests = fc
  .tuple(
    fc.constantFrom('echo && ', 'ls; ', 'true || false; ', ''),
    fc.constantFrom(['[', ']'], ['[[', ']]'], ['test', '']),
    fc.constantFrom('-f a', '! -f a', 'x', '( x )', '-n x', '-v x', '1 -eq 1'),
    fc.array(
      fc.tuple(
        fc.constantFrom('>', '<', '||', '&&', '-o', '-a', '=', '!=', '>>'),
        fc.constantFrom(MARKER, P, 'y', '-f b'),
      ),
      {
        minLength: 1,
        maxLength: 2,
      },
    ),
  )
  .map(([prefix, [open, close], lhs, rest]) =>
    `${prefix}${open} ${lhs} ${rest.map(([op, rhs]) => `${op} ${rhs}`).join(' ')} ${close}`.trimEnd(),
  );

let n = 0;
describe('issue #29: differential fuzz — a line that runs unasked never runs what was not judged', () => {
  it(`Property: no generated line run without asking creates the marker (${RUNS} runs per class)`, async () => {
    let ranUnasked = 0;
    for (const [name, arbitrary] of [
      ['here-documents', heredoc],
      ['braces and subscripts', braces],
      ['wrappers', wrapped],
      ['xargs chains', xargsChains],
      ['tests', tests],
    ] as const) {
      await fc.assert(
        fc.asyncProperty(arbitrary, async (line) => {
          const call = { id: `f${++n}`, name: 'run_command', arguments: { command: line, timeout_ms: 5000 } };
          const [planned] = gate.plan([call]);
          if (planned?.disposition.kind !== 'execute') return; // asks or is refused: runs only as a person saw it
          ranUnasked++;
          rmSync(MARKER, { force: true }); // each line proves itself, so a failure names its own line
          const [result] = await gate.execute([call]);
          expect(existsSync(MARKER), `${name}: ${JSON.stringify(line)} → ${result?.content}`).toBe(false);
        }),
        { numRuns: RUNS, seed: Number(process.env.TOOLGATE_FUZZ_SEED ?? 29) },
      );
    }
    // The fuzz reaches the executor: lines that the policy allows are generated and really run.
    expect(ranUnasked).toBeGreaterThan(10);
  }, 600_000);
});
