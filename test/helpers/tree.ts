import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A directory as a sorted map of relative path → 'dir' or file bytes (symlinks and specials ignored). */
export function snapshotTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        out.set(childRel, 'dir');
        walk(full, childRel);
      } else if (entry.isFile()) {
        out.set(childRel, readFileSync(full).toString('base64'));
      }
    }
  };
  walk(root, '');
  return out;
}

export function listFiles(root: string): string[] {
  return [...snapshotTree(root)].filter(([, v]) => v !== 'dir').map(([k]) => k);
}
