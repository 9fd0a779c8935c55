import type { ConfirmationRequest } from '../core/confirmation.js';
import { describeGrant, type GrantStoreKind } from './grant-coverage.js';

/**
 * How the surfaces that show a request whole (the terminal prompt, `toolgate approvals show`) lay
 * out its long parts (issue #30 §1-2). The full text is a block with every line marked, so nothing
 * in it (a line saying "why asked:" or "preview:") can pass for toolgate's own words, and it is never
 * cut: a surface that cannot show it all says so itself (src/mcp/mcp-approver.ts).
 */
export const BLOCK_MARK = '  │ ';

/** Characters as a person counts them (code points), for "N characters". */
export const charCount = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

/** The full text to approve as a marked block, headed by its size. */
export function detailBlock(detail: string, indent: string): string[] {
  const lines = detail.split('\n');
  return [
    `${indent}full text (${charCount(detail)} characters, ${lines.length} line${lines.length === 1 ? '' : 's'}):`,
    ...lines.map((l) => `${indent}${BLOCK_MARK}${l}`),
  ];
}

/** The block's text as `detailBlock` had it (for a reader that checks it, such as a test). */
export function readDetailBlock(shown: string, indent: string): string | undefined {
  const lines = shown.split('\n');
  const head = lines.findIndex((l) => l.startsWith(`${indent}full text (`));
  if (head === -1) return undefined;
  const mark = `${indent}${BLOCK_MARK}`;
  const body: string[] = [];
  for (const l of lines.slice(head + 1)) {
    if (!l.startsWith(mark)) break;
    body.push(l.slice(mark.length));
  }
  return body.join('\n');
}

/** The lines besides the summary that a request may carry, each labelled. */
export function extraLines(
  r: ConfirmationRequest,
  indent: string,
  label: (name: string) => string,
): string[] {
  return [
    ...(r.summaryFull !== undefined ? [`${indent}${label('summary in full')}${r.summaryFull}`] : []),
    ...(r.commands?.length ? [`${indent}${label('sub-commands')}${r.commands.join('  ·  ')}`] : []),
  ];
}

/** Whether "always" may be offered for a request: only with what a grant would cover (issue #30 §5). */
export const alwaysOffered = (r: ConfirmationRequest): boolean =>
  r.always !== undefined && 'covers' in r.always;

/**
 * What each "always" answer would cover and for whom, in describeGrant's words, or why there is
 * no "always" for the call: every surface that offers it shows this beside the choice.
 */
export function alwaysLines(
  r: ConfirmationRequest,
  indent: string,
  label: (name: string) => string,
  store: GrantStoreKind,
): string[] {
  if (!alwaysOffered(r)) return [`${indent}${label('always')}${describeGrant(r, 'session', { store })}`];
  return (['session', 'project'] as const).map(
    (scope) => `${indent}${label(`always (${scope})`)}${describeGrant(r, scope, { store })}`,
  );
}
