import path from 'node:path';

/**
 * How denials and hints name the config file (issue #31 §1: no absolute path of the user's machine
 * in what goes to the model): relative to the workspace root when it is inside it, by its name and
 * where it came from otherwise; and, with no file, where to create one.
 */
export function configWhere(configFile: string | undefined, firstRoot: string, note?: string): string {
  if (!configFile) return 'toolgate.toml (none is in use: create toolgate.toml in the workspace root)';
  const relative = path.relative(firstRoot, configFile);
  const inside = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  const named = inside
    ? path.dirname(relative) === '.'
      ? `${relative} in the workspace root`
      : `${relative.split(path.sep).join('/')} in the workspace`
    : `${path.basename(configFile)} (the file given with --config, outside the workspace)`;
  return note ? `${named} ${note}` : named;
}
