import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testTool } from '../../test/helpers/tools.js';
import { useWorkspace } from '../../test/helpers/workspace.js';
import { ConfigError, parseConfigText, validateConfig } from '../config/load-config.js';
import { approveAll } from '../core/confirmation.js';
import { ToolError } from '../core/tool-error.js';
import { createToolgate } from '../toolgate.js';
import { failureResult, successResult } from './finalize-result.js';
import { utf8Length } from './truncate-output.js';

/** Lines as a person counts them (a trailing newline ends a line, it starts none). */
function linesOf(text: string): number {
  if (text === '') return 0;
  const parts = text.split('\n');
  return text.endsWith('\n') ? parts.length - 1 : parts.length;
}

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');

describe('finalize-result: both output limits', () => {
  it('Property 43: every success and error result keeps within max_bytes and max_lines, marker included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { maxLength: 80 }).map((l) => l.join('\n')),
        fc.integer({ min: 60, max: 2000 }),
        fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
        (content, maxBytes, maxLines) => {
          const limits = { maxBytes, maxLines };
          const ok = successResult('1', 't', { content }, limits, 0);
          const failed = failureResult('2', 't', 'ExecutionFailed', content, limits, 0);
          for (const text of [ok.content, failed.content, failed.error?.message ?? '']) {
            expect(utf8Length(text)).toBeLessThanOrEqual(maxBytes);
            if (maxLines !== undefined) expect(linesOf(text)).toBeLessThanOrEqual(maxLines);
          }
          const fits =
            utf8Length(content) <= maxBytes && (maxLines === undefined || linesOf(content) <= maxLines);
          expect(ok.content === content).toBe(fits);
          expect(ok.metadata?.truncated === true).toBe(!fits);
          if (!fits) expect(ok.content).toMatch(/\[output truncated: (\d+ lines?, )?\d+ bytes omitted\]$/);
        },
      ),
    );
  });

  it('a JSON object error still passes through whole, whatever the line limit', () => {
    const json = JSON.stringify({ error: 'conflict', lines: numbered(30).split('\n') }, null, 2);
    const r = failureResult('1', 't', 'ExecutionFailed', json, { maxBytes: 100_000, maxLines: 3 }, 0);
    expect(r.content).toBe(json);
    expect(r.error?.message).toBe(json);
  });

  it('binary output that asks for no truncation is left to the tool (FR-TOOL-READ-01b)', () => {
    const content = numbered(20);
    const r = successResult(
      '1',
      't',
      { content, allowTruncation: false },
      { maxBytes: 100_000, maxLines: 3 },
      0,
    );
    expect(r.content).toBe(content);
  });
});

describe('[tools.output] max_lines through the pipeline', () => {
  const ws = useWorkspace();
  const gate = (output: Record<string, unknown>) =>
    createToolgate({
      config: validateConfig({ tools: { output } }),
      roots: [ws.dir()],
      builtins: false,
      tools: [
        testTool('lines', (a) => numbered(Number(a.value))),
        testTool('fail', (a) => {
          throw new ToolError('ExecutionFailed', numbered(Number(a.value)));
        }),
      ],
      approver: approveAll,
    });

  it('results are cut to max_lines with the marker inside, errors too; unset means no line limit', async () => {
    const [ok, failed] = await gate({ max_lines: 10 }).execute([
      { id: '1', name: 'lines', arguments: { value: '500' } },
      { id: '2', name: 'fail', arguments: { value: '500' } },
    ]);
    const kept = numbered(8);
    const omitted = utf8Length(numbered(500)) - utf8Length(kept);
    expect(ok?.content).toBe(`${kept}\n\n... [output truncated: 492 lines, ${omitted} bytes omitted]`);
    expect(ok?.metadata).toMatchObject({ truncated: true });
    expect(linesOf(failed?.content ?? '')).toBe(10);
    expect(failed?.content).toMatch(/^fail failed: line 1\n/);
    expect(failed?.content).toMatch(/\[output truncated: 492 lines, \d+ bytes omitted\]$/);

    const [whole] = await gate({}).execute([{ id: '1', name: 'lines', arguments: { value: '500' } }]);
    expect(whole?.content).toBe(numbered(500));
  });

  it('max_bytes still applies beside max_lines: whichever is reached first', async () => {
    const [r] = await gate({ max_bytes: 200, max_lines: 1000 }).execute([
      { id: '1', name: 'lines', arguments: { value: '500' } },
    ]);
    expect(utf8Length(r?.content ?? '')).toBeLessThanOrEqual(200);
    expect(r?.content).toMatch(/\[output truncated: \d+ lines, \d+ bytes omitted\]$/);
  });

  it('max_lines is optional, a positive integer, and a bad value names the key', () => {
    expect(validateConfig({}).tools.output.max_lines).toBeUndefined();
    expect(parseConfigText('[tools.output]\nmax_lines = 40\n', 'toolgate.toml').tools.output.max_lines).toBe(
      40,
    );
    for (const bad of ['0', '-3', '2.5', '"many"']) {
      expect(() => parseConfigText(`[tools.output]\nmax_lines = ${bad}\n`, 'toolgate.toml')).toThrow(
        ConfigError,
      );
      expect(() => parseConfigText(`[tools.output]\nmax_lines = ${bad}\n`, 'toolgate.toml')).toThrow(
        /tools\.output\.max_lines/,
      );
    }
  });
});
