import { openSqlite } from '../../journal/open-sqlite.js';
import type { MemoryHit } from './memory-retrieval.js';
import { ftsQuery } from './memory-store.js';

/** One message of the session, as the journal keeps it. */
export interface ConversationMessage {
  seq: number;
  role: string;
  batchId?: string | undefined;
  content: unknown;
}

type Stored = {
  text?: unknown;
  toolUses?: { id?: unknown; name?: unknown; arguments?: unknown }[];
  content?: unknown;
};

/**
 * The words of a message as the model and the user saw them: the user's text; the assistant's
 * text and the calls it made; a tool's result. Not the bookkeeping around them (provider, ids).
 */
export function messageText(message: ConversationMessage): string {
  const c = (message.content ?? {}) as Stored;
  const parts: string[] = [];
  if (typeof c.text === 'string' && c.text) parts.push(c.text);
  if (message.role === 'assistant') {
    for (const use of c.toolUses ?? []) {
      const args = typeof use.arguments === 'string' ? use.arguments : JSON.stringify(use.arguments ?? {});
      parts.push(`${String(use.name)} ${args}`);
    }
  } else if (message.role === 'tool' && typeof c.content === 'string') {
    parts.push(c.content);
  }
  return parts.join('\n');
}

/** The batch of the assistant message that made call `callId` (the search itself): left out. */
function ownBatch(messages: readonly ConversationMessage[], callId: string): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as ConversationMessage;
    const uses = (m.content as Stored | undefined)?.toolUses;
    if (m.role === 'assistant' && uses?.some((u) => u.id === callId)) return m.batchId;
  }
  return undefined;
}

/**
 * memory_search's `include_conversation`: the session's own messages in the journal, ranked by
 * BM25 in a throwaway in-memory FTS5 index (a session is small; nothing is kept). Scores are 0–1
 * relative to the best message, times `weight`. The batch that made this search is left out: it
 * would only find its own query.
 */
export function searchConversation(
  messages: readonly ConversationMessage[],
  query: string,
  options: { limit: number; weight: number; callId: string },
): MemoryHit[] {
  const { limit, weight } = options;
  const match = ftsQuery(query);
  if (!match || messages.length === 0) return [];
  const db = openSqlite(':memory:');
  try {
    db.exec("CREATE VIRTUAL TABLE m USING fts5(text, tokenize='porter unicode61')");
    const skip = ownBatch(messages, options.callId);
    const insert = db.prepare('INSERT INTO m (rowid, text) VALUES (?, ?)');
    const texts = new Map<number, { role: string; text: string }>();
    db.transaction(() => {
      for (const message of messages) {
        if (skip !== undefined && message.batchId === skip) continue;
        const text = messageText(message);
        if (!text) continue;
        texts.set(message.seq, { role: message.role, text });
        insert.run(message.seq, text);
      }
    })();
    const rows = db
      .prepare('SELECT rowid AS seq, bm25(m) AS rank FROM m WHERE m MATCH ? ORDER BY rank LIMIT ?')
      .all(match, limit) as { seq: number; rank: number }[];
    const best = rows.reduce((m, r) => Math.max(m, -r.rank), 0);
    return rows
      .filter((r) => -r.rank > 0)
      .map((r) => ({
        key: `message-${r.seq}`,
        text: `${texts.get(r.seq)?.role}: ${texts.get(r.seq)?.text}`,
        source: 'conversation' as const,
        score: Math.round((best > 0 ? (-r.rank / best) * weight : 0) * 10_000) / 10_000,
      }));
  } finally {
    db.close();
  }
}
