import { isUtf8 } from 'node:buffer';
import { constants, type Dirent } from 'node:fs';
import { type FileHandle, lstat, open, readdir } from 'node:fs/promises';
import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolError } from '../../core/tool-error.js';
import { fitJson } from '../../output/fit-json.js';
import { openForRead, throughFd } from '../../sandbox/safe-fs.js';
import { GitignoreFilter } from './gitignore-filter.js';

export interface ListDirectorySettings {
  /** Most entries returned in total before `truncated` is set. */
  maxEntries?: number;
  timeoutMs?: number;
}

const args = z.strictObject({
  path: z.string().min(1).default('.').describe('Directory relative to the workspace root.'),
  depth: z
    .number()
    .int()
    .min(0)
    .max(10)
    .default(0)
    .describe('How deep to recurse: 0 lists this directory only.'),
  include_hidden: z.boolean().default(false).describe('Include entries whose names start with a dot.'),
});

export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface ListEntry {
  name: string;
  type: EntryType;
  size?: number;
  children?: ListEntry[];
}

const listEntry = z.object({
  name: z.string(),
  type: z.enum(['file', 'directory', 'symlink', 'other']),
  size: z.number().optional(),
  get children(): z.ZodOptional<z.ZodArray<typeof listEntry>> {
    return z.array(listEntry).optional();
  },
});

/** The JSON every listing is (MCP outputSchema). */
export const listingSchema = z.object({
  path: z.string(),
  entries: z.array(listEntry),
  truncated: z.boolean(),
  ignored: z.number(),
});

/** The first `keep` entries in listing order (depth first), the rest left out. */
function firstEntries(listing: Listing, keep: number): Listing {
  let left = keep;
  const take = (entries: ListEntry[]): ListEntry[] => {
    const out: ListEntry[] = [];
    for (const e of entries) {
      if (left <= 0) break;
      left--;
      out.push(e.children ? { ...e, children: take(e.children) } : e);
    }
    return out;
  };
  return { ...listing, entries: take(listing.entries), truncated: true };
}

export interface Listing {
  path: string;
  entries: ListEntry[];
  truncated: boolean;
  /** Entries left out because a .gitignore or a denied pattern of the sandbox matched them. */
  ignored: number;
}

function entryType(dirent: Dirent): EntryType {
  if (dirent.isSymbolicLink()) return 'symlink';
  if (dirent.isDirectory()) return 'directory';
  if (dirent.isFile()) return 'file';
  return 'other';
}

const O_DIR_NOFOLLOW = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

/**
 * Lists a directory as the DESIGN §2.4 JSON object. Subdirectories are opened through the parent's
 * descriptor without following links; symlinks are listed as links and nothing is read from their
 * targets. Sorted: directories first, then by name.
 */
export function createListDirectoryTool(settings: ListDirectorySettings = {}) {
  const maxEntries = settings.maxEntries ?? 1000;
  return defineTool({
    name: 'list_directory',
    description:
      'List a directory in the workspace as JSON {path, entries:[{name,type,size?,children?}], truncated, ignored}. depth 0 lists only this directory. Entries matched by .gitignore are left out and counted in "ignored"; hidden entries appear only with include_hidden.',
    args,
    output: listingSchema,
    tier: 'read_only',
    category: 'filesystem',
    ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
    summary: (a) => `List ${a.path}${a.depth > 0 ? ` depth ${a.depth}` : ''}`,
    locations: (a) => [{ path: a.path, access: 'list' }],
    async execute(a, ctx) {
      const target = ctx.sandbox.resolve(a.path);
      const { handle } = await openForRead(target, ctx.sandbox, 'directory');
      const state = { count: 0, truncated: false, ignored: 0 };
      try {
        // Every .gitignore from the root down applies, except lines that would hide the listed
        // directory itself (it was named explicitly), as in glob, grep and ripgrep.
        const filter = new GitignoreFilter(target.root, target.relative);
        const entries = await walk(
          handle,
          target.relative === '.' ? '' : target.relative,
          a.depth,
          a.include_hidden,
          filter,
        );
        const listing: Listing = {
          path: target.relative,
          entries,
          truncated: state.truncated,
          ignored: state.ignored,
        };
        // Cut to the output limit by whole entries: the answer stays valid JSON.
        const fit = fitJson(listing, ctx.outputLimit, state.count, firstEntries);
        const truncated = state.truncated || fit.kept < state.count;
        return {
          content: fit.text,
          display: `${target.relative}: ${fit.kept} entr${fit.kept === 1 ? 'y' : 'ies'}${truncated ? ' (truncated)' : ''}`,
          metadata: { path: target.relative, entries: fit.kept, truncated, ignored: state.ignored },
          allowTruncation: false,
        };
      } finally {
        await handle.close();
      }

      async function walk(
        dir: FileHandle,
        relative: string,
        depthLeft: number,
        hidden: boolean,
        filter: GitignoreFilter,
      ): Promise<ListEntry[]> {
        if (ctx.signal.aborted) throw new ToolError('Cancelled', 'cancelled');
        const dirPath = throughFd(dir, relative);
        filter.readThrough(relative, dirPath);
        // Names as bytes: one that is not valid UTF-8 is listed (escaped), never fatal, and opened
        // by its real bytes.
        const raw = (await readdir(dirPath, {
          withFileTypes: true,
          encoding: 'buffer',
        })) as unknown as RawDirent[];
        const dirents = raw.map((d) => Object.assign(d, { bytes: d.name, name: displayName(d.name) }));
        dirents.sort((x, y) => {
          const dx = x.isDirectory() ? 0 : 1;
          const dy = y.isDirectory() ? 0 : 1;
          return dx - dy || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0);
        });
        const out: ListEntry[] = [];
        for (const dirent of dirents) {
          if (!hidden && dirent.name.startsWith('.')) continue;
          const childRelative = relative ? `${relative}/${dirent.name}` : dirent.name;
          const type = entryType(dirent);
          if (
            filter.ignores(childRelative, type === 'directory') ||
            ctx.sandbox.deniedPattern(childRelative) !== undefined
          ) {
            state.ignored++;
            continue;
          }
          if (state.count >= maxEntries) {
            state.truncated = true;
            break;
          }
          state.count++;
          const entry: ListEntry = { name: dirent.name, type };
          if (type === 'file') {
            // lstat through the directory descriptor: never follows a link.
            entry.size = (await lstat(childPath(dirPath, dirent.bytes))).size;
          } else if (type === 'directory' && depthLeft > 0 && dirent.name !== '.git') {
            let child: FileHandle | undefined;
            try {
              child = await open(childPath(dirPath, dirent.bytes), O_DIR_NOFOLLOW);
              entry.children = await walk(child, childRelative, depthLeft - 1, hidden, filter);
            } catch (error) {
              if (ToolError.isInstance(error)) throw error;
              // Swapped for a link or removed meanwhile: list it without children rather than follow.
            } finally {
              await child?.close();
            }
          }
          out.push(entry);
        }
        return out;
      }
    },
  });
}

type RawDirent = Omit<Dirent, 'name'> & { name: Buffer };

/** A name as shown: UTF-8 when it is, else each byte that is not part of a character as \xNN. */
export function displayName(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    let width = 0;
    for (let w = 1; w <= 4 && i + w <= bytes.length; w++) {
      if (isUtf8(bytes.subarray(i, i + w))) {
        width = w;
        break;
      }
    }
    if (width > 0) {
      out += bytes.subarray(i, i + width).toString('utf8');
      i += width;
    } else {
      out += `\\x${(bytes[i] as number).toString(16).padStart(2, '0')}`;
      i++;
    }
  }
  return out;
}

function childPath(dirPath: string, name: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${dirPath}/`), name]);
}
