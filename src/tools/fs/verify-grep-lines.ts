import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { descriptorIsUnder } from '../../sandbox/safe-fs.js';
import type { GrepLine } from './grep-types.js';

/**
 * ripgrep walks by path names, so a directory swapped for a link while it runs could make it read
 * a file outside. So its lines are shown only after a check here: the file is opened through the
 * verified base directory's descriptor with O_NOFOLLOW, must still lie under the base, and must hold
 * exactly the reported bytes at the reported offset. A line that fails the check is dropped.
 * Cost: one open and one small read per file and line, whatever the file's size.
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
    const handle = await openUnder(`${base.fdPath}/${base.relativeToBase(path)}`, base.absolute);
    if (handle) {
      try {
        for (let k = i; k < j; k++) {
          const line = lines[k] as GrepLine;
          if (await holds(handle, line)) out.push(line);
        }
      } finally {
        await handle.close();
      }
    }
    i = j;
  }
  return out;
}

async function openUnder(file: string, under: string): Promise<FileHandle | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    if ((await handle.stat()).isFile() && (await descriptorIsUnder(handle, under))) return handle;
  } catch {
    // gone, swapped, or not a file: its lines are not shown
  }
  await handle?.close();
  return undefined;
}

async function holds(handle: FileHandle, line: GrepLine): Promise<boolean> {
  if (line.offset === undefined || line.raw === undefined) return false;
  const expected = Buffer.from(line.raw, 'utf8');
  const actual = Buffer.alloc(expected.length);
  const { bytesRead } = await handle.read(actual, 0, expected.length, line.offset);
  return bytesRead === expected.length && actual.equals(expected);
}
