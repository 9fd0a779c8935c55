import * as z from 'zod';
import { patchPreview } from '../../approval/change-preview.js';
import { defineTool } from '../../core/define-tool.js';
import type { ToolContext } from '../../core/tool-definition.js';
import { ToolError } from '../../core/tool-error.js';
import { removeEntry } from '../../sandbox/remove-entry.js';
import { writeFileAtomic } from '../../sandbox/safe-fs.js';
import type { ResolvedPath } from '../../sandbox/sandbox.js';
import { readExisting } from '../fs/read-existing.js';
import type { StaleGuard } from '../fs/stale-guard.js';
import { decodeText, encodeText, type TextFormat } from '../fs/text-format.js';
import { applyChunks } from './apply-chunks.js';
import { parsePatch } from './parse-patch.js';
import type { PatchOp } from './patch-ops.js';

export interface ApplyPatchSettings {
  guard: StaleGuard;
  maxPatchBytes: number;
  maxFileBytes: number;
  timeoutMs?: number;
}

const args = z.strictObject({
  patch: z
    .string()
    .min(1)
    .describe(
      "The patch: a '*** Begin Patch' … '*** End Patch' envelope, or a unified diff (git diff output).",
    ),
});

/** One file's planned state: what is on disk now and what it will be (null = deleted). */
interface Staged {
  target: ResolvedPath;
  /** Bytes on disk before the patch; undefined when the file does not exist. */
  original: Buffer | undefined;
  next: Buffer | null;
  format: TextFormat | undefined;
  verb: 'created' | 'modified' | 'deleted';
  movedFrom?: string;
}

const LF: TextFormat = { bom: false, eol: '\n' };

/**
 * apply_patch, all or nothing across every file: parse, resolve every path (Move to targets too),
 * check the read-before-write guard, and compute every new content before touching the disk; then
 * write each file by temp file + rename, and if any write fails put back what was already replaced.
 */
export function createApplyPatchTool(settings: ApplyPatchSettings) {
  return defineTool({
    name: 'apply_patch',
    description: [
      'Apply a patch to files in the workspace, all or nothing. Read each file with read_file first.',
      'Format: "*** Begin Patch" then, per file, "*** Add File: <path>" (lines starting with +),',
      '"*** Delete File: <path>", or "*** Update File: <path>" (optionally "*** Move to: <path>") followed by',
      'chunks: an optional "@@ <a line just above the change>" header, then lines starting with " " (context),',
      '"-" (remove) or "+" (add), about 3 context lines around each change; end with "*** End Patch".',
      'A unified diff (git diff output) is accepted too.',
    ].join(' '),
    args,
    tier: 'side_effecting',
    category: 'filesystem',
    ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
    summary: (a) => {
      try {
        const paths = parsePatch(a.patch).map((op) =>
          op.kind === 'update' && op.moveTo ? op.moveTo : op.path,
        );
        return `Apply patch to ${paths.length} file(s): ${paths.join(', ')}`;
      } catch {
        return 'Apply patch (unparsable)';
      }
    },
    approvalDetail: (a) => patchPreview(a.patch),
    locations: (a) => {
      try {
        return parsePatch(a.patch).flatMap((op) => [
          { path: op.path, access: op.kind === 'delete' ? ('delete' as const) : ('write' as const) },
          ...(op.kind === 'update' && op.moveTo ? [{ path: op.moveTo, access: 'write' as const }] : []),
        ]);
      } catch {
        return []; // execute reports the parse error with its line
      }
    },
    async execute(a, ctx) {
      const size = Buffer.byteLength(a.patch, 'utf8');
      if (size > settings.maxPatchBytes) {
        throw new ToolError(
          'LimitExceeded',
          `the patch is ${size} bytes, more than the ${settings.maxPatchBytes} allowed (max_patch_bytes); split it into smaller patches`,
        );
      }
      let ops: PatchOp[];
      try {
        ops = parsePatch(a.patch);
      } catch (error) {
        throw new ToolError('PatchFailed', `${(error as Error).message}`);
      }
      if (ops.length === 0)
        throw new ToolError('PatchFailed', 'the patch changes no files; no files were modified');
      const staged = await stage(ops, ctx, settings);
      const changes = [...staged.values()].filter(
        (s) => !(s.original && s.next && s.original.equals(s.next)),
      );
      if (changes.length === 0) return { content: 'No changes applied.' };
      await commit(changes, ctx);
      for (const s of changes) {
        if (s.next) settings.guard.rememberWrite(s.target, s.next);
        else settings.guard.forget(s.target);
      }
      const lines = changes.map(
        (s) => `${s.verb}: ${s.target.relative}${s.movedFrom ? ` (moved from ${s.movedFrom})` : ''}`,
      );
      return {
        content: lines.join('\n'),
        metadata: { files: changes.map((s) => ({ path: s.target.relative, change: s.verb })) },
      };
    },
  });
}

async function stage(
  ops: readonly PatchOp[],
  ctx: ToolContext,
  settings: ApplyPatchSettings,
): Promise<Map<string, Staged>> {
  const staged = new Map<string, Staged>();
  /** Current bytes of a path as the patch so far leaves it (null = deleted by an earlier op). */
  const current = async (target: ResolvedPath): Promise<Staged> => {
    const known = staged.get(target.absolute);
    if (known) return known;
    const original = await readExisting(target, ctx.sandbox, settings.maxFileBytes);
    // Replacing or deleting content the model never saw, or that changed since, is refused.
    if (original) settings.guard.check(target, original);
    const entry: Staged = { target, original, next: original ?? null, format: undefined, verb: 'modified' };
    staged.set(target.absolute, entry);
    return entry;
  };
  const where = (op: PatchOp) => `(patch line ${op.patchLine})`;
  for (const op of ops) {
    if (ctx.signal.aborted) throw new ToolError('Cancelled', 'cancelled');
    const target = ctx.sandbox.resolve(op.path);
    switch (op.kind) {
      case 'add': {
        const entry = await current(target);
        entry.next = encodeText(op.content, entry.format ?? LF);
        entry.verb = entry.original ? 'modified' : 'created';
        break;
      }
      case 'delete': {
        const entry = await current(target);
        if (entry.next === null) {
          throw new ToolError(
            'PatchFailed',
            `cannot delete "${target.relative}" ${where(op)}: it does not exist`,
            { file: target.relative },
          );
        }
        entry.next = null;
        entry.verb = 'deleted';
        break;
      }
      case 'update': {
        const entry = await current(target);
        if (entry.next === null) {
          throw new ToolError(
            'PatchFailed',
            `cannot update "${target.relative}" ${where(op)}: it does not exist; use '*** Add File:' to create it`,
            { file: target.relative },
          );
        }
        const { text, format } = decodeText(entry.next, target.relative);
        const updated = encodeText(
          applyChunks(target.relative, text, op.chunks, op.noFinalNewline === true),
          format,
        );
        if (op.moveTo === undefined) {
          entry.next = updated;
          entry.format = format;
          if (entry.verb !== 'created') entry.verb = 'modified';
          break;
        }
        const destination = ctx.sandbox.resolve(op.moveTo);
        const dest = await current(destination);
        dest.next = updated;
        dest.format = format;
        dest.verb = dest.original ? 'modified' : 'created';
        dest.movedFrom = target.relative;
        if (destination.absolute !== target.absolute) {
          entry.next = null;
          entry.verb = 'deleted';
        }
        break;
      }
    }
  }
  return staged;
}

/** Writes every change; on the first failure restores the files already written, then rethrows. */
async function commit(changes: readonly Staged[], ctx: ToolContext): Promise<void> {
  const done: Staged[] = [];
  // Writes first, deletions last: a failed write then never leaves a file missing.
  const ordered = [...changes.filter((s) => s.next !== null), ...changes.filter((s) => s.next === null)];
  try {
    for (const s of ordered) {
      if (s.next)
        await writeFileAtomic(s.target, ctx.sandbox, s.next, { overwrite: true, createParents: true });
      else if (s.original) await removeEntry(s.target, ctx.sandbox, { recursive: false });
      done.push(s);
    }
  } catch (error) {
    const problems: string[] = [];
    for (const s of done.reverse()) {
      try {
        if (s.original)
          await writeFileAtomic(s.target, ctx.sandbox, s.original, { overwrite: true, createParents: true });
        else await removeEntry(s.target, ctx.sandbox, { recursive: false });
      } catch {
        problems.push(s.target.relative);
      }
    }
    const reason = ToolError.isInstance(error) ? error.message : String(error);
    throw new ToolError(
      'PatchFailed',
      problems.length === 0
        ? `writing the patch failed (${reason}); every file was restored, nothing changed`
        : `writing the patch failed (${reason}) and these files could not be restored: ${problems.join(', ')}`,
    );
  }
}
