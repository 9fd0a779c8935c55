import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import type { ToolContext } from '../../core/tool-definition.js';
import { ToolError } from '../../core/tool-error.js';
import { utf8Length } from '../../output/truncate-output.js';
import { openForRead } from '../../sandbox/safe-fs.js';
import { sniffBinary } from './sniff-binary.js';
import type { StaleGuard } from './stale-guard.js';

export interface ReadManyFilesSettings {
  maxFileReadBytes: number;
  guard?: StaleGuard;
  timeoutMs?: number;
}

const args = z.strictObject({
  paths: z
    .array(z.string().min(1))
    .min(1)
    .max(100)
    .describe('Files to read, relative to the workspace root.'),
});

/**
 * Reads several files into one result: a `--- path ---` header per file, a per-file error that does
 * not fail the others, and one cap for the whole output (files that do not fit are named).
 */
export function createReadManyFilesTool(settings: ReadManyFilesSettings) {
  return defineTool({
    name: 'read_many_files',
    description:
      'Read several text files at once. Each file appears under a "--- <path> ---" header; a file that cannot be read shows its error without failing the others. For one large file use read_file with a line range.',
    args,
    tier: 'read_only',
    category: 'filesystem',
    ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
    summary: (a) => `Read ${a.paths.length} file(s): ${a.paths.join(', ')}`,
    locations: (a) => a.paths.map((p) => ({ path: p, access: 'read' as const })),
    async execute(a, ctx) {
      const parts: string[] = [];
      let used = 0;
      const notShown: string[] = [];
      let failed = 0;
      // Leave room for the closing note about files that did not fit.
      const budget = Math.max(0, ctx.outputLimit - 512);
      for (const requested of a.paths) {
        if (ctx.signal.aborted) throw new ToolError('Cancelled', 'cancelled');
        const section = await readOne(requested, ctx, settings);
        if (section.error) failed++;
        const size = utf8Length(section.text);
        if (used + size > budget) {
          notShown.push(section.label);
          continue;
        }
        parts.push(section.text);
        used += size;
      }
      if (notShown.length > 0) {
        parts.push(
          `\n[${notShown.length} file(s) not shown to stay within the output limit: ${notShown.join(', ')}; read them separately]`,
        );
      }
      return {
        content: parts.join(''),
        display: `read ${a.paths.length - notShown.length} of ${a.paths.length} files${failed ? ` (${failed} failed)` : ''}`,
        metadata: { files: a.paths.length, failed, notShown: notShown.length },
      };
    },
  });
}

async function readOne(
  requested: string,
  ctx: ToolContext,
  settings: ReadManyFilesSettings,
): Promise<{ label: string; text: string; error: boolean }> {
  let label = requested;
  try {
    const target = ctx.sandbox.resolve(requested);
    label = target.relative;
    const { handle, stat } = await openForRead(target, ctx.sandbox, 'file');
    try {
      if (stat.size > settings.maxFileReadBytes) {
        throw new ToolError(
          'LimitExceeded',
          `${stat.size} bytes is more than ${settings.maxFileReadBytes}; use read_file with start_line/end_line`,
        );
      }
      const bytes = await handle.readFile();
      settings.guard?.remember(target, bytes);
      if (sniffBinary(bytes.subarray(0, 8192), bytes.length <= 8192)) {
        return {
          label,
          text: `--- ${label} ---\n[binary file, ${bytes.length} bytes: use read_file to get it as base64]\n`,
          error: false,
        };
      }
      const text = bytes.toString('utf8');
      return {
        label,
        text: `--- ${label} ---\n${text}${text.endsWith('\n') || text === '' ? '' : '\n'}`,
        error: false,
      };
    } finally {
      await handle.close();
    }
  } catch (error) {
    const e = ToolError.isInstance(error) ? error : new ToolError('ExecutionFailed', String(error));
    return { label, text: `--- ${label} ---\n[error: ${e.type}: ${e.message}]\n`, error: true };
  }
}
