import { type Chunk, newSide, type PatchOp, PatchParseError } from './patch-ops.js';

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** `a/x` / `b/x` from git, a tab-separated timestamp from diff -u; `/dev/null` means none. */
function diffPath(raw: string): string | undefined {
  let p = raw.split('\t')[0] as string;
  if (p.startsWith('"') && p.endsWith('"')) p = p.slice(1, -1);
  if (p === '/dev/null') return undefined;
  if (p.startsWith('a/') || p.startsWith('b/')) p = p.slice(2);
  return p;
}

interface FileDiff {
  oldPath: string | undefined;
  newPath: string | undefined;
  isNew: boolean;
  isDeleted: boolean;
  renameFrom?: string;
  renameTo?: string;
  chunks: Chunk[];
  noFinalNewline: boolean;
  headerSeen: boolean;
  line: number;
}

/**
 * Parses unified diffs (`git diff` output and `diff -u`): modifications, new and deleted files,
 * renames (with or without changes). Hunk line counts decide where a hunk ends, so a removed line
 * that itself starts with `--` cannot be mistaken for a file header.
 */
export function parseUnifiedDiff(text: string): PatchOp[] {
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  const files: FileDiff[] = [];
  let current: FileDiff | undefined;
  const start = (line: number): FileDiff => {
    const f: FileDiff = {
      oldPath: undefined,
      newPath: undefined,
      isNew: false,
      isDeleted: false,
      chunks: [],
      noFinalNewline: false,
      headerSeen: false,
      line,
    };
    files.push(f);
    return f;
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (line.startsWith('diff --git ')) {
      current = start(i + 1);
      const m = /^diff --git (?:a\/)?(.+?) (?:b\/)?(.+)$/.exec(line);
      if (m) {
        current.oldPath = m[1];
        current.newPath = m[2];
      }
      i++;
      continue;
    }
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      // Reuse the file opened by `diff --git` unless it already has its ---/+++ pair or hunks.
      if (!current || current.headerSeen || current.chunks.length > 0) current = start(i + 1);
      current.headerSeen = true;
      current.oldPath = diffPath(line.slice(4));
      current.newPath = diffPath((lines[i + 1] as string).slice(4));
      if (current.oldPath === undefined) current.isNew = true;
      if (current.newPath === undefined) current.isDeleted = true;
      i += 2;
      continue;
    }
    if (current && line.startsWith('new file mode')) current.isNew = true;
    else if (current && line.startsWith('deleted file mode')) current.isDeleted = true;
    else if (current && line.startsWith('rename from ')) current.renameFrom = line.slice(12);
    else if (current && line.startsWith('rename to ')) current.renameTo = line.slice(10);
    else if (line.startsWith('@@')) {
      if (!current)
        throw new PatchParseError(
          `line ${i + 1}: a hunk ("@@") comes before any file header ("--- a/path" / "+++ b/path")`,
        );
      const m = HUNK.exec(line);
      if (!m)
        throw new PatchParseError(
          `line ${i + 1}: '${line}' is not a valid hunk header; expected '@@ -start,count +start,count @@'`,
        );
      let oldLeft = m[2] === undefined ? 1 : Number(m[2]);
      let newLeft = m[4] === undefined ? 1 : Number(m[4]);
      const chunk: Chunk = {
        contexts: [],
        lines: [],
        eof: false,
        oldStart: Number(m[1]),
        patchLine: i + 1,
      };
      i++;
      let lastSide: 'old' | 'new' | 'both' = 'both';
      while (i < lines.length && (oldLeft > 0 || newLeft > 0 || lines[i]?.startsWith('\\'))) {
        const body = lines[i] as string;
        if (body.startsWith('\\')) {
          // "\ No newline at end of file" applies to the line just before it.
          if (lastSide !== 'old') current.noFinalNewline = true;
          i++;
          continue;
        }
        const kind = body[0] ?? ' ';
        const rest = body.slice(1);
        if (kind === ' ' || body === '') {
          chunk.lines.push({ kind: 'context', text: rest });
          oldLeft--;
          newLeft--;
          lastSide = 'both';
        } else if (kind === '-') {
          chunk.lines.push({ kind: 'remove', text: rest });
          oldLeft--;
          lastSide = 'old';
        } else if (kind === '+') {
          chunk.lines.push({ kind: 'add', text: rest });
          newLeft--;
          lastSide = 'new';
        } else {
          throw new PatchParseError(
            `line ${i + 1}: '${body}' is not a diff line; hunk lines start with ' ', '-' or '+' (the hunk header's counts may be wrong)`,
          );
        }
        if (oldLeft < 0 || newLeft < 0) {
          throw new PatchParseError(
            `line ${chunk.patchLine}: the hunk has more lines than its header counts`,
          );
        }
        i++;
      }
      if (oldLeft > 0 || newLeft > 0) {
        throw new PatchParseError(
          `line ${chunk.patchLine}: the hunk ends before the lines its header counts`,
        );
      }
      current.chunks.push(chunk);
      continue;
    }
    i++;
  }
  if (files.length === 0) throw new PatchParseError('no file changes found in the diff');
  return files.map(toOp);
}

function toOp(f: FileDiff): PatchOp {
  const from = f.renameFrom ?? f.oldPath;
  const to = f.renameTo ?? f.newPath;
  if (f.isNew) {
    if (!to) throw new PatchParseError(`line ${f.line}: a new file needs a path`);
    const lines = f.chunks.flatMap(newSide);
    const content = lines.length === 0 ? '' : lines.join('\n') + (f.noFinalNewline ? '' : '\n');
    return { kind: 'add', path: to, content, patchLine: f.line };
  }
  if (f.isDeleted) {
    if (!from) throw new PatchParseError(`line ${f.line}: a deleted file needs a path`);
    return { kind: 'delete', path: from, patchLine: f.line };
  }
  if (!from || !to) throw new PatchParseError(`line ${f.line}: the file header names no path`);
  if (f.chunks.length === 0 && from === to) {
    throw new PatchParseError(`line ${f.line}: the diff for "${from}" has no hunks`);
  }
  return {
    kind: 'update',
    path: from,
    ...(to !== from ? { moveTo: to } : {}),
    chunks: f.chunks,
    ...(f.noFinalNewline ? { noFinalNewline: true } : {}),
    patchLine: f.line,
  };
}
