import { type MessageRow, messageRecord } from '../common/message-rows.js';
import type { MessageRecord } from '../journal-types.js';
import type { ConversationLog } from '../roles/conversation-log.js';
import type { PgContext } from './pg-context.js';
import type { PgStatement } from './sync-pg.js';

/** Namespace of the per-session advisory locks that order message appends across processes. */
const MESSAGE_LOCK = 7_461_002;

/** The session's row, made by the first write that names it. */
export function ensureSession(session: string, now: number): PgStatement {
  return {
    text: 'INSERT INTO sessions (id, created_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING',
    values: [session, now],
  };
}

/** The statements that append one message (the session's lock, then the next seq). */
export function messageStatements(
  session: string,
  role: MessageRecord['role'],
  content: unknown,
  batchId: string | null,
  callId: string | null,
  json = JSON.stringify(content),
): PgStatement[] {
  return [
    { text: 'SELECT pg_advisory_xact_lock($1, hashtext($2))', values: [MESSAGE_LOCK, session] },
    {
      text: `INSERT INTO messages (session_id, seq, role, batch_id, call_id, content, created_at)
             SELECT $1, coalesce(max(seq), 0) + 1, $2, $3, $4, $5, $6 FROM messages WHERE session_id = $1`,
      values: [session, role, batchId, callId, json, Date.now()],
    },
  ];
}

/**
 * A session's conversation on PostgreSQL. Message sequence numbers are taken under a per-session
 * advisory lock, so several processes can append to one session.
 */
export class PgConversation implements ConversationLog {
  readonly #ctx: PgContext;

  constructor(ctx: PgContext) {
    this.#ctx = ctx;
  }

  appendMessage(session: string, role: MessageRecord['role'], content: unknown): void {
    this.#ctx.write([
      ensureSession(session, Date.now()),
      ...messageStatements(session, role, content, null, null),
    ]);
  }

  messages(session: string): MessageRecord[] {
    return this.#ctx
      .query<MessageRow>(
        'SELECT seq, role, batch_id, call_id, content FROM messages WHERE session_id = $1 ORDER BY seq',
        [session],
      )
      .map(messageRecord);
  }
}
