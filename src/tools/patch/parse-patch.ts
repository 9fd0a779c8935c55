import { parseEnvelope } from './parse-envelope.js';
import { parseUnifiedDiff } from './parse-unified-diff.js';
import { type PatchOp, PatchParseError } from './patch-ops.js';

/** Either format: the `*** Begin Patch` envelope (also inside a heredoc) or a unified diff. */
export function parsePatch(text: string): PatchOp[] {
  const head = text.trimStart();
  if (head.startsWith('*** Begin Patch') || /^<<['"]?EOF['"]?\s*\n\s*\*\*\* Begin Patch/.test(head)) {
    return parseEnvelope(text);
  }
  if (/^(?:diff --git |--- |@@ )/m.test(text)) return parseUnifiedDiff(text);
  throw new PatchParseError(
    "the patch must start with '*** Begin Patch' (and end with '*** End Patch'), or be a unified diff starting with 'diff --git' or '--- a/<path>'",
  );
}
