import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../test/helpers/workspace.js';
import { validateConfig } from '../../config/load-config.js';
import { approveAll } from '../../core/confirmation.js';
import type { ToolEvent } from '../../core/tool-event.js';
import { createToolgate } from '../../toolgate.js';

/**
 * Seed 001 Properties 25, 26 and 28 for run_command, on real `sh -c` processes in a real temp
 * directory, through the whole pipeline (plan, policy, approval, run, output). Properties 27 and 48
 * (timeout and cancel stop the process group) are in process-group.property.test.ts.
 */
const root = makeTempDir('toolgate-rc-prop-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

function gate(tools: Record<string, unknown> = {}) {
  return createToolgate({
    config: validateConfig({ tools: { approval: { denylist: [] }, ...tools } }),
    roots: [root],
    approver: approveAll,
  });
}

/** One shell word holding exactly `text`. */
const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** Output text without NUL (argv cannot carry it), any other character allowed. */
const text = fc.string({ unit: 'grapheme', maxLength: 60 }).filter((s) => !s.includes('\0'));

describe('run_command properties (seed 001)', () => {
  it('Property 25: any command gives a result with its output (stdout, then [stderr]) and its exit code', async () => {
    // DESIGN §2.4 takes run_command's behaviour from seed 000: stderr appended after "[stderr]", a
    // non-zero exit an ExecutionFailed error that still carries the output and the exit code.
    const g = gate();
    await fc.assert(
      fc.asyncProperty(text, text, fc.integer({ min: 0, max: 255 }), async (out, err, code) => {
        const command = `printf '%s' ${quote(out)}; printf '%s' ${quote(err)} >&2; exit ${code}`;
        const [r] = await g.execute([{ id: '1', name: 'run_command', arguments: { command } }]);
        const body = out + (err.length > 0 ? `\n\n[stderr]\n${err}` : '');
        if (code === 0) {
          expect(r).toMatchObject({ ok: true, content: body, error: null, metadata: { exitCode: 0 } });
        } else {
          expect(r).toMatchObject({
            ok: false,
            content: `run_command failed: exit code ${code}\n${body}`,
            error: { type: 'ExecutionFailed', message: `exit code ${code}\n${body}` },
            metadata: { exitCode: code },
          });
        }
      }),
      { numRuns: 100 },
    );
  });

  it('Property 26: output streams while the command runs (each piece arrives before the command can go on)', async () => {
    const g = gate();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.stringMatching(/^[a-z0-9 ]{1,12}$/), { minLength: 1, maxLength: 3 }),
        async (pieces) => {
          // The command prints a piece, then waits for a file that the test creates only once that
          // piece has reached it as an event: a result that arrived all at the end would time out.
          const dir = `stream${run++}`;
          mkdirSync(path.join(root, dir));
          const command = pieces
            .map((p, i) => `printf '%s\\n' ${quote(p)}; while [ ! -e go${i} ]; do sleep 0.005; done`)
            .join('; ');
          let seen = '';
          const released = new Set<number>();
          const events: ToolEvent['type'][] = [];
          const [r] = await g.execute(
            [{ id: '1', name: 'run_command', arguments: { command, cwd: dir, timeout_ms: 5_000 } }],
            {
              onEvent: (e) => {
                events.push(e.type);
                if (e.type !== 'stdout') return;
                seen += e.chunk;
                pieces.forEach((_, i) => {
                  const upTo = pieces
                    .slice(0, i + 1)
                    .map((p) => `${p}\n`)
                    .join('');
                  if (!released.has(i) && seen.startsWith(upTo)) {
                    released.add(i);
                    writeFileSync(path.join(root, dir, `go${i}`), '');
                  }
                });
              },
            },
          );
          expect(r?.error).toBeNull();
          expect(r?.content).toBe(pieces.map((p) => `${p}\n`).join(''));
          expect(seen).toBe(r?.content);
          expect(released.size).toBe(pieces.length);
          expect(events[0]).toBe('started');
          expect(events.at(-1)).toBe('completed');
          expect(events.filter((t) => t === 'stdout').length).toBeGreaterThanOrEqual(pieces.length);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('Property 28: the command runs in the working directory given, anywhere inside the roots, and never outside them', async () => {
    const g = gate();
    const segment = fc
      .stringMatching(/^[A-Za-z0-9 _é-][A-Za-z0-9 ._é-]{0,10}$/)
      .filter((s) => s !== '.' && s !== '..');
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { maxLength: 4 }), async (segments) => {
        const rel = segments.length > 0 ? segments.join('/') : '.';
        mkdirSync(path.join(root, rel), { recursive: true });
        const [r] = await g.execute([
          { id: '1', name: 'run_command', arguments: { command: 'pwd', cwd: rel } },
        ]);
        expect(r?.error).toBeNull();
        expect(r?.content).toBe(`${path.join(root, rel)}\n`);
        // One `..` more than the depth leaves the root: refused before anything runs.
        const outside = [rel, ...Array.from({ length: segments.length + 1 }, () => '..'), 'x'].join('/');
        const [out] = await g.execute([
          { id: '2', name: 'run_command', arguments: { command: 'pwd', cwd: outside } },
        ]);
        expect(out?.error?.type).toBe('SandboxViolation');
      }),
      { numRuns: 100 },
    );
  });
});
