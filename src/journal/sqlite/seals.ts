import { JournalError } from '../journal-error.js';
import { loadOrCreateSealKey, SEAL_KEY_FILE_DOC, sealKeyFile } from '../seal-key.js';
import { batchFields, seal } from '../state-seal.js';

/** This user's seal key, read (or made) once per process and key file. */
const sealKeys = new Map<string, Buffer>();
export function defaultSealKey(): Buffer {
  const file = sealKeyFile();
  let key = sealKeys.get(file);
  if (!key) {
    key = loadOrCreateSealKey(file);
    sealKeys.set(file, key);
  }
  return key;
}

/**
 * This user's seal key as the journal's parts use it (state-seal.ts): grants, approval answers,
 * modes and batches carry a seal by it, and a row whose seal does not verify counts for nothing.
 * Read on first need: a journal without grants never reads it.
 */
export class Seals {
  /** Gives the key (seal-key.ts), on first need. */
  readonly #loadKey: () => Buffer;
  #key: Buffer | undefined;

  constructor(loadKey: () => Buffer) {
    this.#loadKey = loadKey;
  }

  /** A batch's seal (null without a key: it is then never taken over by a worker on its own). */
  batchSeal(id: string, session: string, createdAt: number): string | null {
    const key = this.keyToRead();
    return key ? seal(key, 'batch', batchFields({ id, session_id: session, created_at: createdAt })) : null;
  }

  /** This user's seal key, or undefined when it cannot be had (then nothing sealed verifies). */
  keyToRead(): Buffer | undefined {
    try {
      return this.#sealKey();
    } catch {
      return undefined;
    }
  }

  /** This user's seal key for a row being written; without one nothing is written (fail closed). */
  keyToWrite(what: string): Buffer {
    try {
      return this.#sealKey();
    } catch (error) {
      throw new JournalError(
        `${(error as Error).message} (toolgate seals ${what} with this user's key, ${SEAL_KEY_FILE_DOC}, so that a journal from elsewhere cannot bring its own)`,
      );
    }
  }

  #sealKey(): Buffer {
    this.#key ??= this.#loadKey();
    return this.#key;
  }
}
