import { readFileSync } from 'node:fs';
import type { ToolgateConfig } from '../config/config-schema.js';
import { ConfigError } from '../config/load-config.js';
import { locateKey } from '../config/locate-key.js';

/** The closest known name, when one is a small edit away (a typo, not another tool). */
function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const d = distance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number;
      row[j] = Math.min(current + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] as number;
}

/**
 * Tool names in the config must name tools: a misspelt name in a denylist silently takes the tool
 * off it (`run_comand`), in an allowlist or a rule it silently does nothing. Globs (`*`, `mcp_*`)
 * are left alone. A name that is no tool is a config error naming the file, line and the likely
 * intended tool.
 */
export function checkToolNames(
  config: ToolgateConfig,
  known: readonly string[],
  file: string | undefined,
): void {
  const where = file ?? '(built-in defaults)';
  const check = (name: string, keyPath: (string | number)[]) => {
    if (/[*?[\]{}]/.test(name) || known.includes(name)) return;
    const guess = closest(name, known);
    throw new ConfigError(
      where,
      file ? locateKey(readFileSync(file, 'utf8'), keyPath) : undefined, // read only to name the line
      keyPath.join('.'),
      `"${name}" is not a tool here${guess ? ` (did you mean "${guess}"?)` : ''}; tools: ${known.join(', ')}`,
    );
  };
  const approval = config.tools.approval;
  for (const [i, name] of approval.allowlist.entries()) check(name, ['tools', 'approval', 'allowlist', i]);
  for (const [i, name] of approval.denylist.entries()) check(name, ['tools', 'approval', 'denylist', i]);
  for (const [i, rule] of config.tools.policy.rules.entries())
    check(rule.tool, ['tools', 'policy', 'rules', i, 'tool']);
  for (const name of Object.keys(config.tools.governance.tools))
    check(name, ['tools', 'governance', 'tools', name]);
}
