import { createHash } from 'node:crypto';
import type { ConfirmationRequest } from './confirmation.js';

/**
 * What a person approving a call saw, as one SHA-256 (issue #17 §3): the tool, the summary, the
 * full text to approve (a command line, the whole diff: never a cut of it, issue #30 §2), the places
 * it touches, why it asks, and what else a surface shows (a rule's message, the sub-commands, the
 * uncut summary, what "always" would cover). A remote answer carries the hash of the preview it answered; the waiting worker
 * applies it only to a call whose preview has that same hash, so an answer never approves something
 * other than what was shown. Fields added later are hashed only when present, so a request without
 * them keeps the hash it had.
 */
export function previewHash(request: ConfirmationRequest): string {
  const shown: unknown[] = [
    request.toolName,
    request.summary,
    request.detail ?? null,
    request.locations.map((l) => [l.access, l.path]),
    request.reason,
    request.rule,
  ];
  const more: Record<string, unknown> = {};
  if (request.message !== undefined) more.message = request.message;
  if (request.commands !== undefined) more.commands = request.commands;
  if (request.summaryFull !== undefined) more.summaryFull = request.summaryFull;
  // What "always" covers is part of what a person agrees to when they answer "always".
  if (request.always !== undefined) more.always = request.always;
  if (Object.keys(more).length > 0) shown.push(more);
  return createHash('sha256').update(JSON.stringify(shown)).digest('hex');
}
