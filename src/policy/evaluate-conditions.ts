import type { PolicyCondition } from '../config/config-schema.js';
import type { ResolvedPath } from '../sandbox/sandbox.js';
import { PatternCache } from './pattern-cache.js';

/**
 * Seed 001 conditions (all must hold) plus `path-glob` and `host-glob` (the host of a URL argument). A missing parameter never matches, so a
 * condition can only narrow a rule. `path-glob` matches the canonical root-relative path when the
 * value was validated by the sandbox, else the value as sent.
 */
export function evaluateConditions(
  conditions: readonly PolicyCondition[],
  args: Record<string, unknown>,
  paths: readonly ResolvedPath[],
  patterns: PatternCache = new PatternCache(),
): boolean {
  return conditions.every((condition) => {
    const raw = args[condition.param];
    if (raw === undefined || raw === null) return false;
    const value = typeof raw === 'string' ? raw : JSON.stringify(raw);
    const expected = Array.isArray(condition.value) ? condition.value : [condition.value];
    switch (condition.operator) {
      case 'equals':
        return expected.some((e) => value === e);
      case 'contains':
        return expected.some((e) => value.includes(e));
      case 'startsWith':
        return expected.some((e) => value.startsWith(e));
      case 'matches':
        return expected.some((e) => patterns.regex(e).test(value));
      case 'path-glob': {
        const resolved = paths.find((p) => p.input === value);
        const subject = resolved ? resolved.relative : value;
        return expected.some((e) => patterns.glob(e)(subject));
      }
      case 'host-glob': {
        // The URL's host name (lower case, no root dot, IPv6 without brackets); not a URL: no match.
        const host = hostOf(value);
        return host !== undefined && expected.some((e) => patterns.glob(e.toLowerCase())(host));
      }
      default:
        return false; // an operator we do not know never matches (the config schema rejects it anyway)
    }
  });
}

function hostOf(value: string): string | undefined {
  try {
    const host = new URL(value).hostname.toLowerCase();
    return host.startsWith('[') ? host.slice(1, -1) : host.replace(/\.$/, '');
  } catch {
    return undefined;
  }
}
