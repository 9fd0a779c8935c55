import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { removeEntry } from '../../sandbox/remove-entry.js';
import type { StaleGuard } from './stale-guard.js';

const args = z.strictObject({
  path: z.string().min(1).describe('File or directory to delete, relative to the workspace root.'),
  recursive: z.boolean().default(false).describe('Needed to delete a directory and everything in it.'),
});

/**
 * Deletes a file, a symlink (the link itself, never its target) or, with `recursive`, a directory
 * tree walked without following links. Privileged: it always asks. A root itself is refused.
 */
export function createDeleteFileTool(settings: { timeoutMs?: number; guard?: StaleGuard } = {}) {
  return defineTool({
    name: 'delete_file',
    description:
      'Delete a file or symlink in the workspace; a directory needs recursive: true. Always asks the user. Symlinks are removed themselves, never followed.',
    args,
    tier: 'privileged',
    category: 'filesystem',
    ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
    summary: (a) => `Delete ${a.path}${a.recursive ? ' (recursive)' : ''}`,
    locations: (a) => [{ path: a.path, access: 'delete' }],
    async execute(a, ctx) {
      const target = ctx.sandbox.resolveEntry(a.path);
      const outcome = await removeEntry(target, ctx.sandbox, { recursive: a.recursive });
      settings.guard?.forget(target);
      const what =
        outcome.kind === 'directory'
          ? `directory ${target.relative} (${outcome.removed} entr${outcome.removed === 1 ? 'y' : 'ies'})`
          : outcome.kind === 'symlink'
            ? `symlink ${target.relative}`
            : target.relative;
      const kept =
        outcome.kept.length === 0
          ? ''
          : `; kept ${outcome.kept.length} denied entr${outcome.kept.length === 1 ? 'y' : 'ies'} (denied paths are never deleted), and the folders holding them: ${outcome.kept.slice(0, 20).join(', ')}`;
      return {
        content: `deleted: ${what}${kept}`,
        metadata: { path: target.relative, kind: outcome.kind, removed: outcome.removed, kept: outcome.kept },
      };
    },
  });
}
