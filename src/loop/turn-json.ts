import type { ConversationMessage } from '../core/conversation.js';

/**
 * A turn's messages as plain JSON, in order (`toolgate run --json`): the person's text, each
 * assistant message with its tool calls and ids, then each tool result.
 */
export function turnToJson(messages: readonly ConversationMessage[]): unknown[] {
  const out: unknown[] = [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.text });
    else if (m.role === 'assistant') {
      out.push({
        role: 'assistant',
        content: m.text,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          name: c.name,
          arguments: c.arguments,
          ...(c.problem ? { problem: c.problem } : {}),
        })),
      });
    } else {
      for (const r of m.results) {
        out.push({
          role: 'tool',
          tool_call_id: r.id,
          name: r.name,
          ok: r.ok,
          content: r.content,
          ...(r.error ? { error: r.error } : {}),
        });
      }
    }
  }
  return out;
}
