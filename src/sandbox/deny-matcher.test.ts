import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DENIED_PATTERNS, TOOLGATE_OWN_PATTERNS } from './default-denies.js';
import { denyMatcher, requiredLiteral } from './deny-matcher.js';

/** The plain answer: the first pattern picomatch matches, with no shortcut. */
const reference = (patterns: readonly string[], nocase: boolean) => (p: string) =>
  patterns.find((pattern) => picomatch(pattern, { dot: true, nocase })(p));

describe('denyMatcher: the substring shortcut never changes an answer', () => {
  it('names the literal text a glob requires, or nothing when it cannot be named safely', () => {
    expect(requiredLiteral('**/.ssh/**')).toBe('.ssh');
    expect(requiredLiteral('**/id_rsa*')).toBe('id_rsa');
    expect(requiredLiteral('**/*.pem')).toBe('.pem');
    expect(requiredLiteral('**/etc/shadow')).toBe('shadow');
    expect(requiredLiteral('**/*')).toBeUndefined();
    expect(requiredLiteral('**/{a,b}.txt')).toBeUndefined();
    expect(requiredLiteral('**/[ab]c')).toBeUndefined();
    expect(requiredLiteral('!(x)')).toBeUndefined();
  });

  it('denies what the default patterns deny, and names the pattern', () => {
    const m = denyMatcher(
      [...TOOLGATE_OWN_PATTERNS, ...DEFAULT_DENIED_PATTERNS, '**/.ssh', '**/.toolgate'],
      false,
    );
    expect(m.test('home/u/.ssh/id_ed25519')).toBe('**/.ssh/**');
    expect(m.test('a/b/server.pem')).toBe('**/*.pem');
    expect(m.test('toolgate.toml')).toBe('**/toolgate.toml');
    expect(m.test('.toolgate/journal.db')).toBe('**/.toolgate/**');
    expect(m.test('src/index.ts')).toBeUndefined();
    expect(m.test('docs/ssh.md')).toBeUndefined();
  });

  const names = [
    'a',
    'b',
    '.ssh',
    'id_rsa',
    'id_rsa.pub',
    'x.pem',
    'KEY.Pem',
    '.git',
    'etc',
    'shadow',
    'toolgate.toml',
    '.toolgate',
    'x+y',
    'a b',
  ];
  // Paths are canonical here (the sandbox resolves them first): no "." or ".." segments; patterns may have them.
  const pathSegment = fc.constantFrom(...names);
  const segment = fc.constantFrom(...names, '.', '..');
  const pathArb = fc.array(pathSegment, { minLength: 1, maxLength: 5 }).map((s) => s.join('/'));
  const patternArb = fc.oneof(
    fc.constantFrom(
      ...DEFAULT_DENIED_PATTERNS,
      ...TOOLGATE_OWN_PATTERNS,
      '**/*',
      '**/{a,b}',
      '**/[ab]',
      'a/**',
      '**/x+y',
      '*.pem',
      'etc/*',
      './*',
      'a/./b',
      './**/.ssh',
      '**/.ssh/',
      '**/*.PEM',
      'a/../b',
      '**/a b',
    ),
    fc
      .array(fc.oneof(segment, fc.constantFrom('*', '**', '*.pem', 'id_*', '?')), {
        minLength: 1,
        maxLength: 4,
      })
      .map((s) => s.join('/')),
  );

  it('Property: for any patterns and path, the answer equals picomatch without the shortcut', () => {
    fc.assert(
      fc.property(
        fc.array(patternArb, { minLength: 1, maxLength: 6 }),
        pathArb,
        fc.boolean(),
        (patterns, p, nocase) => {
          const fast = denyMatcher(patterns, nocase).test(p);
          const slow = reference(patterns, nocase)(p);
          expect(fast !== undefined).toBe(slow !== undefined);
          if (fast !== undefined) expect(patterns).toContain(fast);
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 2000) },
    );
  });
});
