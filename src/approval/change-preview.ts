/**
 * What a file change will do, as a person approving it reads it (terminal, MCP client, the web
 * console): a unified-diff-like text made from the call's arguments alone (no I/O at planning).
 * Capped, the cap said in the text; what it holds is part of the preview an approval is bound to.
 */
const MAX_PREVIEW_CHARS = 3000;

function cap(text: string): string {
  if (text.length <= MAX_PREVIEW_CHARS) return text;
  return `${text.slice(0, MAX_PREVIEW_CHARS)}\n… (${text.length - MAX_PREVIEW_CHARS} more characters not shown)`;
}

const lines = (text: string, mark: string) =>
  text
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => `${mark}${l}`)
    .join('\n');

/** edit_file: each replacement as removed and added lines. */
export function editPreview(
  path: string,
  edits: readonly { target: string; replacement: string; replace_all?: boolean }[],
): string {
  const hunks = edits.map((e, i) =>
    `@@ change ${i + 1}${e.replace_all ? ' (every occurrence)' : ''} @@\n${lines(e.target, '-')}\n${e.replacement === '' ? '' : lines(e.replacement, '+')}`.trimEnd(),
  );
  return cap(`--- ${path}\n+++ ${path}\n${hunks.join('\n')}`);
}

/** write_file: the whole new content, as added lines. */
export function writePreview(path: string, content: string, overwrite: boolean): string {
  return cap(`--- ${overwrite ? path : '/dev/null'}\n+++ ${path}\n${lines(content, '+')}`);
}

/** apply_patch: the patch itself is the diff. */
export function patchPreview(patch: string): string {
  return cap(patch);
}
