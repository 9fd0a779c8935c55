/**
 * Redacts secrets from text shown in approval prompts and logs (seed 000 FR-APR-01).
 * Errs on the side of hiding: a false positive costs a little clarity, a miss leaks a credential.
 */
const REDACTED = '[REDACTED]';

const PATTERNS: readonly RegExp[] = [
  // PEM private keys, whole block (or to the end when cut off).
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  // Well-known token shapes.
  /\b(?:sk|pk|rk)-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

// `Authorization: Bearer x`, `--password=x`, `API_KEY=x`, `"token": "x"`, `-p x` is too ambiguous to touch.
const KEY_VALUE =
  /((?:[A-Za-z0-9_-]*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|auth)[A-Za-z0-9_-]*)["']?\s*[:=]\s*["']?)([^\s"'&;,]+)/gi;
const BEARER = /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{6,}/gi;
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+:[^/\s@]+@/gi;

// Every pattern above needs one of these; text without any is returned untouched (the common case).
const MAYBE_SECRET =
  /[sprk]k-|gh[pousr]_|github_pat|xox|AKIA|AIza|eyJ|BEGIN|bearer|basic|token|pass|pwd|secret|key|credential|auth|:\/\//i;

export function redactSecrets(text: string): string {
  if (!MAYBE_SECRET.test(text)) return text;
  let out = text;
  for (const pattern of PATTERNS) out = out.replace(pattern, REDACTED);
  out = out.replace(BEARER, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  out = out.replace(URL_CREDENTIALS, (_m, scheme: string) => `${scheme}${REDACTED}@`);
  out = out.replace(KEY_VALUE, (_m, key: string) => `${key}${REDACTED}`);
  return out;
}

/** Caps a summary at `max` characters (code points), ending with an ellipsis when cut. */
export function capSummary(text: string, max = 200): string {
  if (text.length <= max) return text; // UTF-16 units ≥ code points, so this is surely short enough
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, max - 1).join('')}…`;
}
