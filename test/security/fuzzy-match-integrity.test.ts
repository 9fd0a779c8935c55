import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NO_NEWLINE } from '../../src/approval/change-preview.js';
import { validateConfig } from '../../src/config/load-config.js';
import type { ConfirmationRequest } from '../../src/core/confirmation.js';
import type { ToolResult } from '../../src/core/tool-result.js';
import { readShown } from '../../src/output/show-exact.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue #30 §1, hostile review: a file change's approval preview is built from the arguments alone,
 * and apply_patch / edit_file match those arguments loosely (trailing whitespace, Unicode
 * punctuation, indentation). The loose match must never make the written file differ from what the
 * preview shows: a context line keeps the file's own text, added lines are written as shown, and
 * lines match at another indentation only as one block (edit_file moves the replacement alike).
 * Everything runs through createToolgate on real files; the preview is the one the approver got.
 */
const tools = { approval: { denylist: [] } };

/** A real pipeline over a fresh folder holding `file`, read first; it approves and keeps each preview. */
async function gateWith(content: string) {
  const dir = makeTempDir('toolgate-fuzzy-');
  const file = path.join(dir, 'f.py');
  writeFileSync(file, content);
  const shown: ConfirmationRequest[] = [];
  const gate = createToolgate({
    config: validateConfig({ tools }),
    roots: [dir],
    approver: async (requests) => {
      shown.push(...requests);
      return { kind: 'approve_all' };
    },
  });
  const [read] = await gate.execute([{ id: 'r', name: 'read_file', arguments: { path: 'f.py' } }]);
  expect(read?.ok).toBe(true);
  let n = 0;
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> => {
    const [r] = await gate.execute([{ id: `c${n++}`, name, arguments: args }]);
    if (!r) throw new Error('no result');
    return r;
  };
  /** The preview of the last call the approver was asked about, decoded to its exact text. */
  const preview = () => {
    const detail = shown.at(-1)?.detail;
    expect(detail, 'the change was shown to the approver').toBeDefined();
    return readShown(detail as string);
  };
  return { call, preview, read: () => readFileSync(file, 'utf8'), asked: () => shown.length };
}

const envelope = (...body: string[]) =>
  ['*** Begin Patch', '*** Update File: f.py', ...body, '*** End Patch', ''].join('\n');

const AUTH = 'def get_secret(user):\n    if user.is_admin:\n        return SECRET\n    return None\n';

describe('issue #30 §1 (hostile review): apply_patch writes only the file and the + lines', () => {
  it('issue #30 §1 (hostile review): a line shown as unchanged context at another indentation is not rewritten (the patch is refused, the file untouched)', async () => {
    const g = await gateWith(AUTH);
    // The review's patch1: `return SECRET` as context at 4 spaces; it sits at 8 inside the `if`.
    const r = await g.call('apply_patch', {
      patch: envelope(
        '@@',
        ' def get_secret(user):',
        '-    if user.is_admin:',
        '+    if user.is_admin:  # admins only (audited)',
        '+        audit(user)',
        '     return SECRET',
        '     return None',
      ),
    });
    expect(r.ok).toBe(false);
    expect(r.content).toContain(
      "Copy the lines with the file's indentation: line 3 ('return SECRET') has 8 spaces where the patch has 4 spaces",
    );
    expect(g.read()).toBe(AUTH);
  });

  it('issue #30 §1 (hostile review): context lines shown at the wrong indentation cannot move an added line into another block', async () => {
    // Shown: `evil()` inside `if never:` (context at 0/4, the + line at 4). In the file `if never:`
    // is at 4 and `pass` at 8, so written as shown `evil()` would run outside the `if`.
    const file = 'def f():\n    if never:\n        pass\n    done()\n';
    const g = await gateWith(file);
    const r = await g.call('apply_patch', {
      patch: envelope('@@', ' if never:', '     pass', '+    evil()'),
    });
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(
      /Copy the lines with the file's indentation: line 2 \('if never:'\) has 4 spaces where the patch has no indentation/,
    );
    expect(g.read()).toBe(file);
  });

  it('issue #30 §1 (hostile review): a context line matched ignoring trailing whitespace or Unicode punctuation keeps the file’s bytes', async () => {
    const file = 'def f():\n    say(“hi” — “there”)   \n    if ok:\n        return 1\n';
    const g = await gateWith(file);
    const r = await g.call('apply_patch', {
      patch: envelope(
        '@@',
        '     say("hi" - "there")',
        '     if ok:',
        '-        return 1',
        '+        return 2',
      ),
    });
    expect(r.ok, r.content).toBe(true);
    expect(g.read()).toBe('def f():\n    say(“hi” — “there”)   \n    if ok:\n        return 2\n');
  });
});

describe('issue #30 §1 (hostile review): edit_file matches at another indentation only as one block', () => {
  it('issue #30 §1 (hostile review): a target whose relative indentation differs from the file is not a match (return SECRET stays inside the if)', async () => {
    const g = await gateWith(AUTH);
    const r = await g.call('edit_file', {
      path: 'f.py',
      edits: [
        {
          target: 'if user.is_admin:\nreturn SECRET\n',
          replacement: 'if user.is_admin:\n    audit(user)\nreturn SECRET\n',
        },
      ],
    });
    expect(r.ok).toBe(false);
    expect(r.error?.type).toBe('EditTargetNotFound');
    expect(r.content).toContain(
      `copy the target's lines exactly as "f.py" has them, indentation included: line 3 ('return SECRET') has 8 spaces where the target has no indentation`,
    );
    expect(g.read()).toBe(AUTH);
  });

  it('issue #30 §1 (hostile review): a target written without its common indentation matches, and the replacement moves by the same amount', async () => {
    const g = await gateWith(AUTH);
    const r = await g.call('edit_file', {
      path: 'f.py',
      edits: [
        {
          target: 'if user.is_admin:\n    return SECRET\n',
          replacement: 'if user.is_admin:\n    audit(user)\n    return SECRET\n',
        },
      ],
    });
    expect(r.ok, r.content).toBe(true);
    expect(g.read()).toBe(
      'def get_secret(user):\n    if user.is_admin:\n        audit(user)\n        return SECRET\n    return None\n',
    );
  });

  it('issue #30 §1 (hostile review): a more-indented target whose replacement cannot move as one block is refused', async () => {
    const g = await gateWith(AUTH);
    // Target 4 spaces deeper than the file: the replacement's `return None` has no 4 spaces to lose.
    const r = await g.call('edit_file', {
      path: 'f.py',
      edits: [
        {
          target: '        if user.is_admin:\n            return SECRET\n',
          replacement: '        if user.is_admin:\n            return SECRET\n  return None\n',
        },
      ],
    });
    expect(r.ok).toBe(false);
    expect(r.content).toContain('indent the target and replacement as "f.py" has them at line 2');
    expect(g.read()).toBe(AUTH);
  });
});

// ---- The property: every line written is an untouched file line or a line as the preview shows it.

const DASHES = /[\u2010-\u2015\u2212]/g;
const fold = (s: string) =>
  s
    .replace(DASHES, '-')
    .replace(/[\u201c-\u201f]/g, '"')
    .replace(/[\u2018-\u201b]/g, "'");
/** What a loose match may ignore: trailing whitespace and Unicode punctuation. Never indentation. */
const loose = (file: string, shown: string) => fold(file).trimEnd() === fold(shown).trimEnd();

const INDENTS = ['', '  ', '    ', '\t', '        '];
const WORDS = ['if x:', 'return y', 'say(“hi”)', 'a — b', 'pass', 'x = 1', ''];
const TRAILS = ['', ' ', '\t'];
const line = fc
  .tuple(fc.constantFrom(...INDENTS), fc.constantFrom(...WORDS), fc.constantFrom(...TRAILS))
  .map(([i, w, t]) => `${i}${w}${t}`);

/** A model's copy of a file line: exact, or off in trailing whitespace, punctuation, indentation, or text. */
const variant = (l: string) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constant(l) },
    { weight: 2, arbitrary: fc.constantFrom('', ' ', '  ').map((t) => l.trimEnd() + t) },
    { weight: 2, arbitrary: fc.constant(fold(l)) },
    { weight: 2, arbitrary: fc.constantFrom(...INDENTS).map((i) => i + l.trimStart()) },
    { weight: 1, arbitrary: line },
  );

type Op = { kind: ' ' | '-' | '+'; text: string };

/**
 * Is `result` the file with one run of its lines replaced as `ops` show: context lines kept byte for
 * byte (and loosely equal to what is shown), `-` lines dropped (loosely equal), `+` lines exactly as
 * shown, every other line untouched? A search over (result line, file line, op, phase).
 */
function patchHonest(file: string[], result: string[], ops: Op[]): boolean {
  const seen = new Set<string>();
  const go = (i: number, j: number, p: number, phase: 0 | 1 | 2): boolean => {
    const key = `${i},${j},${p},${phase}`;
    if (seen.has(key)) return false;
    seen.add(key);
    const copy = i < result.length && j < file.length && result[i] === file[j];
    if (phase !== 1) {
      if (phase === 2 && i === result.length && j === file.length) return true;
      if (copy && go(i + 1, j + 1, p, phase)) return true;
      return phase === 0 && go(i, j, 0, 1);
    }
    if (p === ops.length) return go(i, j, p, 2);
    const op = ops[p] as Op;
    if (op.kind === '+') return i < result.length && result[i] === op.text && go(i + 1, j, p + 1, 1);
    if (j >= file.length || !loose(file[j] as string, op.text)) return false;
    if (op.kind === '-') return go(i, j + 1, p + 1, 1);
    return copy && go(i + 1, j + 1, p + 1, 1);
  };
  return go(0, 0, 0, 0);
}

/** The ops of a one-chunk envelope patch, read back from the preview text. */
function opsOfPreview(preview: string): Op[] {
  const lines = preview.split('\n');
  const from = lines.indexOf('@@') + 1;
  const to = lines.indexOf('*** End Patch');
  return lines.slice(from, to).map((l) => ({ kind: (l[0] ?? ' ') as Op['kind'], text: l.slice(1) }));
}

const linesOf = (text: string) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));

describe('issue #30 §1 (hostile review): what is shown is what is written, for any file and change', () => {
  it('issue #30 §1 (hostile review): apply_patch writes each line as an untouched file line or a + line exactly as the preview shows it', async () => {
    const patchCase = fc.array(line, { minLength: 1, maxLength: 10 }).chain((file) =>
      fc.record({
        file: fc.constant(file),
        ops: fc
          .tuple(fc.nat({ max: file.length - 1 }), fc.nat({ max: 4 }))
          .chain(([at, len]) =>
            fc.tuple(
              ...file
                .slice(at, at + len)
                .map((l) =>
                  fc.tuple(
                    fc.constantFrom<' ' | '-'>(' ', '-'),
                    variant(l),
                    fc.array(line, { maxLength: 2 }),
                  ),
                ),
              fc.array(line, { maxLength: 2 }),
            ),
          )
          .map((parts) => {
            const lead = parts.at(-1) as string[];
            const ops: Op[] = lead.map((text) => ({ kind: '+', text }));
            for (const [kind, text, adds] of parts.slice(0, -1) as unknown as [
              ' ' | '-',
              string,
              string[],
            ][]) {
              ops.push({ kind, text }, ...adds.map((t) => ({ kind: '+' as const, text: t })));
            }
            // A trailing blank context line is read as the gap before the next header (codex leniency).
            while (ops.at(-1)?.kind === ' ' && ops.at(-1)?.text.trim() === '') ops.pop();
            return ops;
          }),
      }),
    );
    let applied = 0;
    await fc.assert(
      fc.asyncProperty(patchCase, async ({ file, ops }) => {
        const content = `${file.join('\n')}\n`;
        const g = await gateWith(content);
        const patch = envelope('@@', ...ops.map((o) => o.kind + o.text));
        const r = await g.call('apply_patch', { patch });
        if (!r.ok) {
          expect(g.read()).toBe(content);
          return;
        }
        applied++;
        const shown = g.preview();
        expect(shown).toBe(patch);
        expect(patchHonest(file, linesOf(g.read()), opsOfPreview(shown)), g.read()).toBe(true);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 150) },
    );
    // The property says something only if many patches applied, loosely matched ones among them.
    expect(applied).toBeGreaterThan(40);
  });

  it('issue #30 §1 (hostile review): edit_file writes the file untouched around the replacement, exactly as shown or moved as one block with its target', async () => {
    const editCase = fc.array(line, { minLength: 1, maxLength: 10 }).chain((file) =>
      fc.record({
        file: fc.constant(file),
        target: fc
          .tuple(fc.nat({ max: file.length - 1 }), fc.integer({ min: 1, max: 4 }))
          .chain(([at, len]) => {
            const region = file.slice(at, at + len);
            return fc.oneof(
              // Line by line, each copy off in its own way (the review's case among them).
              fc.tuple(...region.map(variant)),
              // The whole block moved by one indentation.
              fc.constantFrom('  ', '\t', '    ').chain((p) =>
                fc.constantFrom(
                  region.map((l) => (l.trim() === '' ? l : p + l)),
                  region.map((l) => (l.startsWith(p) ? l.slice(p.length) : l)),
                ),
              ),
            );
          }),
        replacement: fc.array(line, { maxLength: 4 }),
      }),
    );
    let applied = 0;
    await fc.assert(
      fc.asyncProperty(editCase, async ({ file, target, replacement }) => {
        const content = `${file.join('\n')}\n`;
        const t = `${target.join('\n')}\n`;
        const rep = replacement.length ? `${replacement.join('\n')}\n` : '';
        const g = await gateWith(content);
        const r = await g.call('edit_file', { path: 'f.py', edits: [{ target: t, replacement: rep }] });
        if (!r.ok) {
          expect(g.read()).toBe(content);
          return;
        }
        applied++;
        // Read the target and replacement back from what the approver saw.
        const shown = g.preview().split('\n').slice(3);
        expect(shown).not.toContain(NO_NEWLINE);
        const minus = shown.filter((l) => l.startsWith('-')).map((l) => l.slice(1));
        const plus = shown.filter((l) => l.startsWith('+')).map((l) => l.slice(1));
        expect(`${minus.join('\n')}\n`).toBe(t);
        expect(plus.length ? `${plus.join('\n')}\n` : '').toBe(rep);
        expect(editHonest(content, g.read(), minus, plus), g.read()).toBe(true);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 150) },
    );
    expect(applied).toBeGreaterThan(40);
  });
});

/**
 * Is `result` the file with one place replaced as shown: either the exact target text replaced by
 * the exact replacement, or whole lines equal to the target's moved as one block by a prefix P
 * (trailing whitespace aside; blank lines match blank lines) replaced by the replacement moved by
 * that same P, every other byte untouched?
 */
function editHonest(content: string, result: string, minus: string[], plus: string[]): boolean {
  const target = `${minus.join('\n')}\n`;
  const rep = plus.length ? `${plus.join('\n')}\n` : '';
  for (let i = content.indexOf(target); i !== -1; i = content.indexOf(target, i + 1)) {
    if (result === content.slice(0, i) + rep + content.slice(i + target.length)) return true;
  }
  const file = linesOf(content);
  const blank = (s: string) => s.trim() === '';
  for (let a = 0; a + minus.length <= file.length; a++) {
    const region = file.slice(a, a + minus.length);
    const firstShown = minus.findIndex((l) => !blank(l));
    if (firstShown < 0 || blank(region[firstShown] as string)) continue;
    const f0 = region[firstShown] as string;
    const s0 = minus[firstShown] as string;
    const fe = f0.trimEnd();
    const se = s0.trimEnd();
    const shifts: ((l: string) => string | undefined)[] = [];
    if (fe.endsWith(se) && fe.slice(0, fe.length - se.length).trim() === '') {
      const p = fe.slice(0, fe.length - se.length);
      shifts.push((l) => (blank(l) ? l : p + l));
    }
    if (se.endsWith(fe) && se.slice(0, se.length - fe.length).trim() === '') {
      const p = se.slice(0, se.length - fe.length);
      shifts.push((l) => (blank(l) ? l : l.startsWith(p) ? l.slice(p.length) : undefined));
    }
    for (const move of shifts) {
      const fits = region.every((f, k) =>
        blank(f) || blank(minus[k] as string)
          ? blank(f) && blank(minus[k] as string)
          : f.trimEnd() === move((minus[k] as string).trimEnd()),
      );
      if (!fits) continue;
      const moved = plus.map(move);
      if (moved.some((l) => l === undefined)) continue;
      const expected = [...file.slice(0, a), ...(moved as string[]), ...file.slice(a + minus.length)];
      if (result === (expected.length ? `${expected.join('\n')}\n` : '')) return true;
    }
  }
  return false;
}
