import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A client root URI as a canonical directory, or undefined when it is not a usable file:// root. */
function clientRootPath(uri: string): string | undefined {
  try {
    if (!uri.startsWith('file://')) return undefined;
    return realpathSync.native(fileURLToPath(uri));
  } catch {
    return undefined;
  }
}

const inside = (child: string, parent: string) =>
  child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);

/**
 * The effective roots when a client offers roots: the intersection with the configured roots, never
 * wider. A configured root inside a client root stays; a client root inside a configured root
 * narrows to it; anything else is dropped.
 */
export function intersectRoots(configured: readonly string[], clientUris: readonly string[]): string[] {
  const client = clientUris.map(clientRootPath).filter((p): p is string => p !== undefined);
  const out = new Set<string>();
  for (const c of configured) {
    for (const r of client) {
      if (inside(c, r)) out.add(c);
      else if (inside(r, c)) out.add(r);
    }
  }
  return [...out].sort();
}
