import path from 'node:path';

/**
 * Where the memory store lives: `[tools.memory] file`, relative to the first workspace root
 * (undefined for ':memory:'). One place, so the file the tools open is the file the sandbox denies.
 */
export function memoryFileLocation(file: string, firstRoot: string): string | undefined {
  return file === ':memory:' ? undefined : path.resolve(firstRoot, file);
}
