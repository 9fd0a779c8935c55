import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The ripgrep binary shipped by @vscode/ripgrep, or undefined when it is missing here. Read when
 * first asked for, not when toolgate is imported: the package throws on import where its
 * platform's binary package (an optional dependency of it) was not installed, e.g. with
 * `npm i --omit=optional`; grep and glob then use their JavaScript implementations, as they do
 * when the binary is missing.
 */
export function ripgrepBinary(): string | undefined {
  let rgPath: string | undefined;
  try {
    rgPath = (createRequire(import.meta.url)('@vscode/ripgrep') as { rgPath?: string }).rgPath;
  } catch {
    return undefined;
  }
  return rgPath && existsSync(rgPath) ? rgPath : undefined;
}
