import { createHash } from 'node:crypto';
import type { ConfirmationRequest } from './confirmation.js';

/**
 * What a person approving a call saw, as one SHA-256 (issue #17 §3): the tool, the summary, the
 * full text to approve (a command line, a diff), the places it touches, and why it asks. A remote
 * answer carries the hash of the preview it answered; the waiting worker applies it only to a call
 * whose preview has that same hash, so an answer never approves something other than what was shown.
 */
export function previewHash(request: ConfirmationRequest): string {
  const shown = [
    request.toolName,
    request.summary,
    request.detail ?? null,
    request.locations.map((l) => [l.access, l.path]),
    request.reason,
    request.rule,
  ];
  return createHash('sha256').update(JSON.stringify(shown)).digest('hex');
}
