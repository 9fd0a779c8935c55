import { type MessageRow, messageRecord } from '../common/message-rows.js';
import type { MessageRecord } from '../journal-types.js';
import type { ConversationLog } from '../roles/conversation-log.js';
import type { SqliteContext } from './sqlite-context.js';

/**
 * A session's conversation on SQLite. Messages are appended inside the write that records them
 * (`SqliteContext.message`, numbered under the write lock); read back with staged batches folded.
 */
export class SqliteConversation implements ConversationLog {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  appendMessage(session: string, role: MessageRecord['role'], content: unknown): void {
    this.#ctx.write(() => {
      this.#ctx.stmt.ensureSession.run(session, Date.now());
      this.#ctx.message(session, role, content, null, null);
    });
  }

  messages(session: string): MessageRecord[] {
    this.#ctx.foldForRead();
    return (this.#ctx.stmt.messages.all(session) as MessageRow[]).map(messageRecord);
  }
}
