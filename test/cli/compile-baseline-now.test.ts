import v8 from 'node:v8';
import { afterAll, describe, expect, it } from 'vitest';
import { beforeFirstCall, compileBaselineFromNowOn } from '../../src/cli/compile-baseline-now.js';

/** V8's own answer for a function (bit 15: it has baseline machine code). */
function hasBaselineCode(fn: (...args: never[]) => unknown): boolean {
  v8.setFlagsFromString('--allow-natives-syntax');
  const status = new Function('f', 'return %GetOptimizationStatus(f)') as (f: unknown) => number;
  return (status(fn) & (1 << 15)) !== 0;
}

describe('issue #14 start-up and fresh calls: toolgate mcp compiles its request path as baseline code', () => {
  afterAll(() => v8.setFlagsFromString('--no-always-sparkplug'));

  it('a function first run after compileBaselineFromNowOn has baseline code at once; one run before it does not', () => {
    const before = new Function('x', 'return x + 1') as (x: number) => number;
    expect(before(1)).toBe(2);
    expect(hasBaselineCode(before)).toBe(false);
    compileBaselineFromNowOn();
    const after = new Function('x', 'return x + 2') as (x: number) => number;
    expect(after(1)).toBe(3);
    expect(hasBaselineCode(after)).toBe(true);
  });

  it('beforeFirstCall runs its hook once, before the first call, and passes arguments and results through', () => {
    const seen: string[] = [];
    const wrapped = beforeFirstCall(
      (a: number, b: number) => {
        seen.push(`call ${a}+${b}`);
        return a + b;
      },
      () => seen.push('hook'),
    );
    expect(wrapped(1, 2)).toBe(3);
    expect(wrapped(3, 4)).toBe(7);
    expect(seen).toEqual(['hook', 'call 1+2', 'call 3+4']);
  });
});
