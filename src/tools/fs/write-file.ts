import * as z from 'zod';
import { writePreview } from '../../approval/change-preview.js';
import { defineTool } from '../../core/define-tool.js';
import { writeFileAtomic } from '../../sandbox/safe-fs.js';
import { readExisting } from './read-existing.js';
import type { StaleGuard } from './stale-guard.js';

const args = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe('File path relative to the workspace root. Missing parent directories are created.'),
  content: z.string().describe('The complete new content of the file.'),
  overwrite: z
    .boolean()
    .default(false)
    .describe('Replace the file if it exists (default false: fail with AlreadyExists).'),
});

/** Creates or (with overwrite) replaces a file, atomically: temp file + rename, never in place. */
export function createWriteFileTool(
  settings: { timeoutMs?: number; guard?: StaleGuard; maxFileBytes?: number } = {},
) {
  return defineTool({
    name: 'write_file',
    description:
      'Write a whole file in the workspace. Fails with AlreadyExists if the file exists, unless overwrite is true. Creates parent directories. For changes to part of a file prefer edit_file or apply_patch.',
    args,
    tier: 'side_effecting',
    category: 'filesystem',
    ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
    summary: (a) =>
      `${a.overwrite ? 'Overwrite' : 'Create'} ${a.path} (${Buffer.byteLength(a.content)} bytes)`,
    approvalDetail: (a) => writePreview(a.path, a.content, a.overwrite === true),
    locations: (a) => [{ path: a.path, access: 'write' }],
    async execute(a, ctx) {
      const target = ctx.sandbox.resolve(a.path);
      if (a.overwrite && settings.guard) {
        // Replacing a file the model never saw (or that changed since) would lose someone's work.
        const current = await readExisting(
          target,
          ctx.sandbox,
          settings.maxFileBytes ?? Number.MAX_SAFE_INTEGER,
        );
        if (current) settings.guard.check(target, current);
      }
      const outcome = await writeFileAtomic(target, ctx.sandbox, a.content, {
        overwrite: a.overwrite,
        createParents: true,
      });
      settings.guard?.rememberWrite(target, a.content);
      const verb = outcome.created ? 'created' : 'overwrote';
      return {
        content: `${verb}: ${target.relative} (${outcome.bytes} bytes)`,
        metadata: { path: target.relative, created: outcome.created, bytes: outcome.bytes },
      };
    },
  });
}
