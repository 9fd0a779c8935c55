import type { BatchHistory, BatchLog } from '../journal/journal.js';
import { UsageError } from './usage-error.js';

/**
 * A batch id as a person types it: the whole id, or its start (ids are shown shortened, like git's
 * commits). An unknown or ambiguous id is a usage error that says what to do.
 */
export function findBatchId(
  journal: BatchHistory & Pick<BatchLog, 'location'>,
  typed: string,
  seeAlso: string,
): string {
  if (journal.batch(typed)) return typed;
  const matches = journal.batchIdsStartingWith(typed, 6);
  if (matches.length === 1) return matches[0] as string;
  if (matches.length === 0) {
    throw new UsageError(`no batch "${typed}" in ${journal.location}; see \`${seeAlso}\``);
  }
  throw new UsageError(
    `"${typed}" is the start of more than one batch (${matches.slice(0, 5).join(', ')}${matches.length > 5 ? ', …' : ''}); type more of the id`,
  );
}
