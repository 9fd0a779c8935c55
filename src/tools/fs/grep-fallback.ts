import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import picomatch from 'picomatch';
import { glob as tinyglob } from 'tinyglobby';
import { ToolError } from '../../core/tool-error.js';
import { GitignoreFilter } from './gitignore-filter.js';
import { clipLine, type GrepLine, type GrepQuery } from './grep-types.js';
import { sniffBinary } from './sniff-binary.js';

const MAX_FILE_BYTES = 8 * 1024 * 1024;

/** Builds the JavaScript regular expression for a query; a bad pattern is BadArgs with the reason. */
export function queryRegex(query: GrepQuery): RegExp {
  const source = query.fixedStrings ? query.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : query.pattern;
  try {
    return new RegExp(source, query.caseSensitive ? 'u' : 'iu');
  } catch (error) {
    throw new ToolError('BadArgs', `invalid regular expression: ${(error as Error).message}`);
  }
}

/**
 * The same search in JavaScript, for when the ripgrep binary is missing: files from tinyglobby
 * (no symlinks followed, hidden skipped), .gitignore honoured, binary files skipped, line by line.
 */
export async function grepWithJavaScript(
  root: string,
  baseRelative: string,
  isFile: boolean,
  query: GrepQuery,
  accept: (line: GrepLine) => boolean,
  signal: AbortSignal,
): Promise<{ stopped: boolean }> {
  const regex = queryRegex(query);
  const prefix = baseRelative === '.' ? '' : `${baseRelative}/`;
  const files = isFile
    ? [baseRelative]
    : (
        await tinyglob('**/*', {
          cwd: `${root}/${baseRelative}`,
          dot: false,
          followSymbolicLinks: false,
          onlyFiles: true,
          expandDirectories: false,
          ignore: ['**/.git/**'],
          signal,
        })
      )
        .map((rel) => prefix + rel)
        .sort();
  const include = query.include
    ? picomatch(query.include, { dot: true, basename: !query.include.includes('/') })
    : undefined;
  const filter = new GitignoreFilter(root);
  for (const file of files) {
    if (signal.aborted) throw new ToolError('Cancelled', 'cancelled');
    if (include && !include(file)) continue;
    if (!isFile && (await filter.ignores(file))) continue;
    const lines = await readTextLines(`${root}/${file}`);
    if (!lines) continue;
    // Every matching line plus `context` lines around it, each shown once, in file order.
    const matched = lines.map((l) => regex.test(l));
    const shown = new Array<boolean>(lines.length).fill(false);
    matched.forEach((m, i) => {
      if (!m) return;
      for (let k = Math.max(0, i - query.context); k <= Math.min(lines.length - 1, i + query.context); k++)
        shown[k] = true;
    });
    for (let k = 0; k < lines.length; k++) {
      if (!shown[k]) continue;
      const line = {
        path: file,
        line: k + 1,
        text: clipLine(lines[k] as string),
        kind: matched[k] ? 'match' : 'context',
      } as const;
      if (!accept(line)) return { stopped: true };
    }
  }
  return { stopped: false };
}

async function readTextLines(file: string): Promise<string[] | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return undefined;
    const bytes = await handle.readFile();
    if (sniffBinary(bytes.subarray(0, 8192), bytes.length <= 8192)) return undefined;
    const text = bytes.toString('utf8');
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    return lines;
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
