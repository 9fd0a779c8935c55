import { showExact } from '../output/show-exact.js';

/**
 * What a file change will do, as a person approving it reads it (terminal, `toolgate approvals
 * show`, the web console, an MCP client): a unified-diff-like text made from the call's arguments
 * alone (no I/O at planning). Never cut (issue #30 §2): the preview hash binds all of it, and it is
 * exact — a file that does not end in a newline says so, as diff does, so the last byte is shown
 * too. A surface that cannot show it whole says how much it hides (src/mcp/mcp-approver.ts).
 */
export const NO_NEWLINE = '\\ No newline at end of file';

/** A path in a header: one line, whatever its name holds (the content lines are the exact part). */
const label = (path: string) => showExact(path, { oneLine: true });

/** Each line of `text` marked; a missing final newline said as diff says it. */
function lines(text: string, mark: string): string {
  // Unmarked, so no line of content can look like it.
  if (text === '') return '(empty)';
  const ends = text.endsWith('\n');
  const body = (ends ? text.slice(0, -1) : text)
    .split('\n')
    .map((l) => `${mark}${l}`)
    .join('\n');
  return ends ? body : `${body}\n${NO_NEWLINE}`;
}

/** edit_file: each replacement as removed and added lines, with how it picks where. */
export function editPreview(
  path: string,
  edits: readonly { target: string; replacement: string; replace_all?: boolean; line_hint?: number }[],
): string {
  const hunks = edits.map((e, i) => {
    const how = e.replace_all
      ? ' (every occurrence)'
      : e.line_hint
        ? ` (the one nearest line ${e.line_hint})`
        : '';
    return `@@ change ${i + 1}${how} @@\n${lines(e.target, '-')}\n${lines(e.replacement, '+')}`;
  });
  return `--- ${label(path)}\n+++ ${label(path)}\n${hunks.join('\n')}`;
}

/** write_file: the whole new content, as added lines. */
export function writePreview(path: string, content: string, overwrite: boolean): string {
  return `--- ${overwrite ? label(path) : '/dev/null'}\n+++ ${label(path)}\n${lines(content, '+')}`;
}

/** apply_patch: the patch itself is the diff, all of it. */
export function patchPreview(patch: string): string {
  return patch;
}
