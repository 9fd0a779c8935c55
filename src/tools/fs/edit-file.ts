import * as z from 'zod';
import { editPreview } from '../../approval/change-preview.js';
import { defineTool } from '../../core/define-tool.js';
import { ToolError } from '../../core/tool-error.js';
import { writeFileAtomic } from '../../sandbox/safe-fs.js';
import { closestRegion, findTarget, indentationNearMiss, type Match } from './find-target.js';
import { applyShift, describeIndent } from './indent-shift.js';
import { readExisting } from './read-existing.js';
import type { StaleGuard } from './stale-guard.js';
import { decodeText, encodeText, normalizeNewlines } from './text-format.js';

export interface EditFileSettings {
  guard: StaleGuard;
  maxFileBytes: number;
  timeoutMs?: number;
}

const edit = z.strictObject({
  target: z
    .string()
    .min(1)
    .describe('Exact text to replace, copied from the file (include enough lines to be unique).'),
  replacement: z.string().describe('The new text.'),
  line_hint: z
    .number()
    .int()
    .min(1)
    .max(1_000_000_000)
    .optional()
    .describe('When the target occurs more than once: the line it is near.'),
  replace_all: z
    .boolean()
    .default(false)
    .describe('Replace every occurrence instead of requiring exactly one.'),
});

const args = z.strictObject({
  path: z.string().min(1).describe('File path relative to the workspace root.'),
  edits: z.array(edit).min(1).max(100).describe('Edits applied in order, all or nothing.'),
});

function pick(matches: Match[], hint: number | undefined): Match | undefined {
  if (matches.length === 1) return matches[0];
  if (hint === undefined) return undefined;
  const sorted = [...matches].sort((a, b) => Math.abs(a.line - hint) - Math.abs(b.line - hint));
  // Two occurrences equally near the hint are still ambiguous.
  if (
    sorted.length > 1 &&
    Math.abs((sorted[0] as Match).line - hint) === Math.abs((sorted[1] as Match).line - hint)
  ) {
    return undefined;
  }
  return sorted[0];
}

/**
 * Replaces text in a file: every edit must match (exact, then ignoring trailing whitespace, then
 * moved as one block by a common indentation, the replacement moved alike) exactly once unless replace_all or a line_hint settles it; all edits apply
 * or none. Line endings and a BOM stay as the file had them. Needs a prior read (stale guard).
 */
export function createEditFileTool(settings: EditFileSettings) {
  return defineTool({
    name: 'edit_file',
    description:
      "Edit a file by replacing text. Each edit's target must match exactly one place (copy it from read_file output with enough surrounding lines); use line_hint or replace_all for repeated text. All edits apply or none do. Read the file first.",
    args,
    tier: 'side_effecting',
    category: 'filesystem',
    ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
    summary: (a) => `Edit ${a.path} (${a.edits.length} change${a.edits.length === 1 ? '' : 's'})`,
    approvalDetail: (a) => editPreview(a.path, a.edits),
    locations: (a) => [{ path: a.path, access: 'write' }],
    async execute(a, ctx) {
      const target = ctx.sandbox.resolve(a.path);
      const bytes = await readExisting(target, ctx.sandbox, settings.maxFileBytes);
      if (!bytes)
        throw new ToolError('NotFound', `"${target.relative}" does not exist; create it with write_file`);
      settings.guard.check(target, bytes);
      const { text: original, format } = decodeText(bytes, target.relative);
      let text = original;
      let replacements = 0;
      for (const [n, e] of a.edits.entries()) {
        const label = a.edits.length > 1 ? `edit ${n + 1}: ` : '';
        const wanted = normalizeNewlines(e.target);
        const matches = findTarget(text, wanted);
        if (matches.length === 0) {
          const miss = indentationNearMiss(text, wanted);
          if (miss) {
            throw new ToolError(
              'EditTargetNotFound',
              `${label}copy the target's lines exactly as "${target.relative}" has them, indentation included: line ${miss.line} ('${miss.file.trim()}') has ${describeIndent(miss.file)} where the target has ${describeIndent(miss.target)}. A target matches at another indentation only when all its lines move by the same amount, so the change keeps the shape it was shown with.`,
            );
          }
          const near = closestRegion(text, wanted);
          throw new ToolError(
            'EditTargetNotFound',
            `${label}the target text was not found in "${target.relative}"${n > 0 ? ' (after the earlier edits)' : ''}.` +
              (near
                ? ` The closest region is at line ${near.line}:\n${near.excerpt}\nCopy the target exactly from there.`
                : ' Read the file again and copy the target exactly.'),
          );
        }
        const chosen = e.replace_all ? matches : [pick(matches, e.line_hint)];
        if (chosen[0] === undefined) {
          throw new ToolError(
            'EditTargetAmbiguous',
            `${label}the target text occurs ${matches.length} times in "${target.relative}", at lines ${matches.map((m) => m.line).join(', ')}; add surrounding lines to make it unique, pass line_hint, or set replace_all`,
          );
        }
        // Apply from the end so earlier offsets stay valid.
        for (const m of [...(chosen as Match[])].sort((x, y) => y.start - x.start)) {
          // An indentation match moves the replacement by the same shift as the target, as one block.
          const moved = applyShift(normalizeNewlines(e.replacement), m.shift);
          if (moved === undefined) {
            throw new ToolError(
              'EditTargetNotFound',
              `${label}indent the target and replacement as "${target.relative}" has them at line ${m.line}: the target matched only with ${describeIndent(m.shift?.remove ?? '')} less indentation, and a replacement line has less than that to take away, so moving it would change its indentation relative to the other lines.`,
            );
          }
          text = text.slice(0, m.start) + moved + text.slice(m.end);
          replacements++;
        }
      }
      if (text === original)
        return { content: `No changes applied: the edits leave "${target.relative}" as it was.` };
      const out = encodeText(text, format);
      await writeFileAtomic(target, ctx.sandbox, out, { overwrite: true, createParents: false });
      settings.guard.rememberWrite(target, out);
      return {
        content: `modified: ${target.relative} (${replacements} replacement${replacements === 1 ? '' : 's'})`,
        metadata: { path: target.relative, replacements },
      };
    },
  });
}
