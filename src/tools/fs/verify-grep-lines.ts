import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { descriptorIsUnder } from '../../sandbox/safe-fs.js';
import { clipLine, type GrepLine } from './grep-types.js';

const MAX_FILE_BYTES = 8 * 1024 * 1024;

/**
 * ripgrep walks by path names, so a directory swapped for a link while it runs could make it read
 * a file outside. Its answer is therefore only a list of (file, line number): the text shown is
 * read again here, through the verified base directory's descriptor, with O_NOFOLLOW and a check
 * that the opened file still lies under the base. Lines of a file that fails the check are dropped.
 */
export async function verifyGrepLines(
  lines: readonly GrepLine[],
  base: { fdPath: string; absolute: string; relativeToBase: (fromRoot: string) => string },
): Promise<GrepLine[]> {
  const out: GrepLine[] = [];
  let i = 0;
  while (i < lines.length) {
    const path = (lines[i] as GrepLine).path;
    let j = i;
    while (j < lines.length && (lines[j] as GrepLine).path === path) j++;
    const text = await readVerified(`${base.fdPath}/${base.relativeToBase(path)}`, base.absolute);
    if (text) {
      for (let k = i; k < j; k++) {
        const line = lines[k] as GrepLine;
        const actual = text[line.line - 1];
        if (actual !== undefined) out.push({ ...line, text: clipLine(actual) });
      }
    }
    i = j;
  }
  return out;
}

async function readVerified(file: string, under: string): Promise<string[] | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES || !(await descriptorIsUnder(handle, under)))
      return undefined;
    const bytes = Buffer.alloc(stat.size);
    const { bytesRead } = stat.size > 0 ? await handle.read(bytes, 0, stat.size, 0) : { bytesRead: 0 };
    return bytes.subarray(0, bytesRead).toString('utf8').split('\n');
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
