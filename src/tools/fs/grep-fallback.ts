import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import picomatch from 'picomatch';
import { ToolError } from '../../core/tool-error.js';
import { descriptorIsUnder, throughFd } from '../../sandbox/safe-fs.js';
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
export interface JsSearchTarget {
  /** The verified directory to walk, or undefined when searching one file. */
  dir: FileHandle | undefined;
  /** The verified file to search, or undefined when walking a directory. */
  file: FileHandle | undefined;
  baseRelative: string;
  baseAbsolute: string;
  root: string;
}

export async function grepWithJavaScript(
  target: JsSearchTarget,
  query: GrepQuery,
  accept: (line: GrepLine) => boolean,
  signal: AbortSignal,
): Promise<{ stopped: boolean }> {
  const regex = queryRegex(query);
  if (target.file) {
    const lines = await linesOf(target.file);
    return { stopped: lines ? !emit(target.baseRelative, lines, regex, query, accept) : false };
  }
  if (!target.dir) return { stopped: false };
  const dirPath = throughFd(target.dir, target.baseAbsolute);
  const prefix = target.baseRelative === '.' ? '' : `${target.baseRelative}/`;
  const { glob: tinyglob } = await import('tinyglobby'); // only without ripgrep
  const files = (
    await tinyglob('**/*', {
      cwd: dirPath,
      dot: false,
      followSymbolicLinks: false,
      onlyFiles: true,
      expandDirectories: false,
      ignore: ['**/.git/**'],
      signal,
    })
  ).sort();
  const include = query.include
    ? picomatch(query.include, { dot: true, basename: !query.include.includes('/') })
    : undefined;
  const filter = new GitignoreFilter(target.root, target.baseRelative);
  for (const rel of files) {
    if (signal.aborted) throw new ToolError('Cancelled', 'cancelled');
    const fromRoot = prefix + rel;
    if (include && !include(rel)) continue;
    if (filter.ignores(fromRoot)) continue;
    const handle = await openNoFollow(`${dirPath}/${rel}`);
    if (!handle) continue;
    try {
      // A subdirectory swapped for a link meanwhile would lead outside: only files still under the base count.
      if (!(await descriptorIsUnder(handle, target.baseAbsolute))) continue;
      const lines = await linesOf(handle);
      if (lines && !emit(fromRoot, lines, regex, query, accept)) return { stopped: true };
    } finally {
      await handle.close();
    }
  }
  return { stopped: false };
}

/** Every matching line plus `context` lines around it, each once, in order; false = stop. */
function emit(
  path: string,
  lines: string[],
  regex: RegExp,
  query: GrepQuery,
  accept: (line: GrepLine) => boolean,
): boolean {
  const matched = lines.map((l) => regex.test(l));
  const shown = new Array<boolean>(lines.length).fill(false);
  matched.forEach((m, i) => {
    if (!m) return;
    for (let k = Math.max(0, i - query.context); k <= Math.min(lines.length - 1, i + query.context); k++)
      shown[k] = true;
  });
  for (let k = 0; k < lines.length; k++) {
    if (!shown[k]) continue;
    if (
      !accept({
        path,
        line: k + 1,
        text: clipLine(lines[k] as string),
        kind: matched[k] ? 'match' : 'context',
      })
    )
      return false;
  }
  return true;
}

async function openNoFollow(file: string): Promise<FileHandle | undefined> {
  try {
    return await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
}

async function linesOf(handle: FileHandle): Promise<string[] | undefined> {
  const stat = await handle.stat();
  if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return undefined;
  const bytes = Buffer.alloc(stat.size);
  const { bytesRead } = stat.size > 0 ? await handle.read(bytes, 0, stat.size, 0) : { bytesRead: 0 };
  const data = bytes.subarray(0, bytesRead);
  if (sniffBinary(data.subarray(0, 8192), data.length <= 8192)) return undefined;
  const lines = data.toString('utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}
