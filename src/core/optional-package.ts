/**
 * Packages toolgate installs as optional dependencies (package.json `optionalDependencies`): the
 * CLI gets them with `npm i toolgate`, a library that does not use their feature can leave them
 * out (`--omit=optional`), and a build that fails does not fail the install. Each is loaded the
 * first time its feature is used; when it is absent, that feature stops with the install line.
 * The versions are checked against package.json by a test.
 */
export const OPTIONAL_PACKAGES = {
  'better-sqlite3': '12.11.1',
  '@anthropic-ai/sandbox-runtime': '0.0.78',
} as const;

export type OptionalPackage = keyof typeof OPTIONAL_PACKAGES;

/** A feature was used whose package is not installed. */
export class MissingPackageError extends Error {
  readonly packageName: OptionalPackage;

  constructor(name: OptionalPackage, feature: string) {
    super(
      `${feature} needs ${name}, which is not installed (an optional dependency of toolgate: left out with --omit=optional, or its install failed); install it: npm i ${name}@${OPTIONAL_PACKAGES[name]}`,
    );
    this.name = 'MissingPackageError';
    this.packageName = name;
  }
}

/**
 * Whether `error` says that `name` itself (or a file of it, such as its native addon's package
 * path) cannot be found, as require() and import() say it; a package that is there but fails to
 * load is a different problem and keeps its own error.
 */
function isMissing(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return false;
  const quoted = `'${name}`;
  const message = String((error as Error).message);
  const at = message.indexOf(quoted);
  return at !== -1 && /^['/]/.test(message.slice(at + quoted.length));
}

/** Runs `load` (which requires `name` or uses it); a missing `name` becomes a MissingPackageError. */
export function requireOptional<T>(name: OptionalPackage, feature: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (isMissing(error, name)) throw new MissingPackageError(name, feature);
    throw error;
  }
}

/** As requireOptional, for a package loaded with import(). */
export async function importOptional<T>(
  name: OptionalPackage,
  feature: string,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissing(error, name)) throw new MissingPackageError(name, feature);
    throw error;
  }
}
