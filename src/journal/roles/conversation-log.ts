import type { MessageRecord } from '../journal-types.js';

/**
 * The conversation of a session, message by message (the agent loop resumes from it).
 */
export interface ConversationLog {
  appendMessage(session: string, role: MessageRecord['role'], content: unknown): void;
  messages(session: string): MessageRecord[];
}
