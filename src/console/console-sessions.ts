import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The console's sign-ins (issue #30 §7). A browser never holds the console's token: signing in
 * (with the token in a POST form, or a one-time code printed by `toolgate serve`) makes a session
 * with two random values. The session id is the cookie (HttpOnly); the key is handed to the page
 * once and kept in its origin's localStorage. Cookies are scoped by host, not port, so any server
 * on 127.0.0.1 the same browser visits receives the cookie; localStorage is scoped by origin (port
 * included) and sent only as a header by the console's own script. Answers and previews need both.
 */
export interface ConsoleSession {
  id: string;
  key: string;
  /** The person answering, recorded with every answer. */
  name: string;
  expiresAt: number;
}

/** How long a sign-in lasts. */
export const SESSION_MS = 12 * 60 * 60 * 1000;

const digest = (s: string) => createHash('sha256').update(s).digest();
/** Equal strings, compared in constant time (by their digests, so lengths do not leak either). */
export const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

const random = () => randomBytes(32).toString('hex');

/** A person's name as given at sign-in: one visible line, or why not (the fix first). */
export function checkName(raw: string): { name: string } | { problem: string } {
  const name = raw.trim();
  if (!name) return { problem: 'give your name: it is recorded with every answer you give' };
  if (name.length > 80) return { problem: 'give a shorter name (80 characters at most)' };
  // Control, format (bidi, zero-width), separator and unassigned characters would let a name pose as another.
  if (/[\p{C}\p{Zl}\p{Zp}]/u.test(name) || /[^\S ]/u.test(name))
    return { problem: 'give your name in visible characters (no control, bidi or invisible characters)' };
  return { name };
}

export class ConsoleSessions {
  readonly #sessions = new Map<string, ConsoleSession>();
  readonly #codes = new Map<string, string>(); // one-time code → the name it signs in
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** A new sign-in for `name`. */
  create(name: string): ConsoleSession {
    this.#sweep();
    const session = { id: random(), key: random(), name, expiresAt: this.#now() + SESSION_MS };
    this.#sessions.set(session.id, session);
    return session;
  }

  /** The live session with this id (the cookie), or undefined. */
  get(id: string | undefined): ConsoleSession | undefined {
    if (!id) return undefined;
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    if (session.expiresAt <= this.#now()) {
      this.#sessions.delete(id);
      return undefined;
    }
    return session;
  }

  /** The live session with this id whose key is `key` too (what answers need). */
  getWithKey(id: string | undefined, key: string | undefined): ConsoleSession | undefined {
    const session = this.get(id);
    return session && key !== undefined && sameSecret(key, session.key) ? session : undefined;
  }

  end(id: string | undefined): void {
    if (id) this.#sessions.delete(id);
  }

  /** A code that signs `name` in once (printed by `toolgate serve` in the address to open). */
  oneTimeCode(name: string): string {
    const code = random();
    this.#codes.set(code, name);
    return code;
  }

  /** Uses up a one-time code: the name it signs in, or undefined (unknown, or used already). */
  redeem(code: string): string | undefined {
    for (const [known, name] of this.#codes) {
      if (sameSecret(code, known)) {
        this.#codes.delete(known);
        return name;
      }
    }
    return undefined;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [id, s] of this.#sessions) if (s.expiresAt <= now) this.#sessions.delete(id);
  }
}
