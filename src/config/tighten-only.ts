import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { ToolgateConfig } from './config-schema.js';
import { hasRulesBelow, ruleFor, type TighteningRule } from './tightening-rules.js';

/** One setting of an untrusted project config that does not apply, and why. */
export interface IgnoredSetting {
  /** Dotted key as written in the file, e.g. `tools.run_command.allow`, `tools.policy.rules[2]`. */
  key: string;
  why: string;
}

export interface TightenedInput {
  /** The file's settings that apply, as a config document (validate it for the defaults). */
  input: Record<string, unknown>;
  ignored: IgnoredSetting[];
}

/**
 * Of a project config document (the parsed TOML, already validated in full), keeps only what makes
 * the built-in `defaults` stricter, by the table in `tightening-rules.ts`; `baseDir` is the file's
 * own directory (roots are relative to it). Everything else is listed as ignored.
 */
export function tightenOnly(
  document: Record<string, unknown>,
  defaults: ToolgateConfig,
  baseDir: string,
): TightenedInput {
  const ignored: IgnoredSetting[] = [];
  const input = walk(document, [], { defaults, baseDir, ignored });
  return { input, ignored };
}

interface WalkState {
  defaults: ToolgateConfig;
  baseDir: string;
  ignored: IgnoredSetting[];
}

function walk(table: Record<string, unknown>, at: string[], state: WalkState): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(table)) {
    const keyPath = [...at, name];
    if (isTable(value) && hasRulesBelow(keyPath)) {
      const inner = walk(value, keyPath, state);
      if (Object.keys(inner).length > 0) kept[name] = inner;
      continue;
    }
    const outcome = judge(ruleFor(keyPath), keyPath, value, state);
    if (outcome.applies) kept[name] = outcome.value;
  }
  return kept;
}

type Outcome = { applies: true; value: unknown } | { applies: false };

function judge(
  rule: TighteningRule | undefined,
  keyPath: string[],
  value: unknown,
  state: WalkState,
): Outcome {
  const key = keyPath.join('.');
  const ignore = (why: string): Outcome => {
    state.ignored.push({ key, why });
    return { applies: false };
  };
  if (!rule) return ignore('not known to tighten the policy');
  switch (rule.kind) {
    case 'tightens':
      return { applies: true, value };
    case 'adds-to-default': {
      const base = defaultAt(state.defaults, keyPath);
      if (!Array.isArray(value) || !Array.isArray(base)) return ignore('not a list');
      const missing = base.filter((entry) => !value.includes(entry));
      if (missing.length > 0)
        state.ignored.push({ key, why: `would remove the built-in ${missing.join(', ')}, which stays` });
      // The defaults stay: a project may add to a deny list, never take an entry out of it.
      return { applies: true, value: [...value, ...missing] };
    }
    case 'lower-only': {
      const base = defaultAt(state.defaults, keyPath);
      if (typeof value !== 'number') return ignore('not a number');
      if (typeof base === 'number' && value > base)
        return ignore(`raises a limit above the built-in ${base}`);
      return { applies: true, value };
    }
    case 'only':
      return rule.values.includes(value as string | boolean)
        ? { applies: true, value }
        : ignore(`${JSON.stringify(value)} is less strict than the built-in default`);
    case 'deny-and-ask-rules':
      return keepDenyAndAskRules(value, key, state);
    case 'roots-inside-project':
      return rootsInside(value, state.baseDir)
        ? { applies: true, value }
        : ignore('names roots outside the directory of the file');
    case 'ignored':
      return ignore(rule.why);
  }
}

/** Allow rules are dropped; deny and ask rules stay, with a risk only when it says "high". */
function keepDenyAndAskRules(value: unknown, key: string, state: WalkState): Outcome {
  if (!Array.isArray(value)) {
    state.ignored.push({ key, why: 'not a list of rules' });
    return { applies: false };
  }
  const kept: unknown[] = [];
  value.forEach((rule, index) => {
    const action = isTable(rule) ? rule.action : undefined;
    if (isTable(rule) && (action === 'deny' || action === 'ask')) {
      // A lower risk would make the ask look harmless to the person answering it.
      const { risk, ...rest } = rule;
      kept.push(risk === 'high' ? rule : rest);
    } else {
      state.ignored.push({
        key: `${key}[${index}]`,
        why: `a rule with action "${String(action)}" allows calls`,
      });
    }
  });
  return kept.length > 0 ? { applies: true, value: kept } : { applies: false };
}

/** Every root, resolved as the file would resolve it and with symlinks followed, stays inside `baseDir`. */
function rootsInside(value: unknown, baseDir: string): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  let base: string;
  try {
    base = realpathSync(baseDir);
  } catch {
    return false;
  }
  return value.every((root) => {
    if (typeof root !== 'string') return false;
    const inside = (p: string, dir: string) => p === dir || p.startsWith(`${dir}${path.sep}`);
    const named = path.resolve(baseDir, root);
    try {
      return inside(realpathSync(named), base);
    } catch (error) {
      // A missing root inside the directory stays, so resolve-setup reports it as for any config.
      return (error as NodeJS.ErrnoException).code === 'ENOENT' && inside(named, path.resolve(baseDir));
    }
  });
}

function defaultAt(defaults: ToolgateConfig, keyPath: readonly string[]): unknown {
  let at: unknown = defaults;
  for (const part of keyPath) at = isTable(at) ? at[part] : undefined;
  return at;
}

function isTable(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
