import type { AssistantToolCall, ConversationMessage, ProviderKind } from '../core/conversation.js';
import type { ToolResult } from '../core/tool-result.js';
import type { Journal } from '../journal/journal.js';

interface StoredAssistant {
  text?: string | null;
  toolUses?: { id: string; name: string; arguments: unknown }[];
  provider?: ProviderKind;
  raw?: unknown;
}

/**
 * A session's conversation rebuilt from the journal, so `--session` continues where it stopped:
 * the person's messages, the model's turns (with their raw form for a verbatim echo) and each
 * batch's results in call order. Batches not made by a model (`toolgate exec`) are left out.
 */
export function loadConversation(journal: Journal, session: string): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  const modelBatches = new Set<string>();
  for (const record of journal.messages(session)) {
    if (record.role === 'user') {
      const text = (record.content as { text?: unknown }).text;
      if (typeof text === 'string') out.push({ role: 'user', text });
    } else if (record.role === 'assistant') {
      const stored = record.content as StoredAssistant;
      if (!stored.provider) continue;
      if (record.batchId) modelBatches.add(record.batchId);
      const toolCalls: AssistantToolCall[] = (stored.toolUses ?? []).map((u) => ({
        id: u.id,
        name: u.name,
        arguments: typeof u.arguments === 'string' ? u.arguments : JSON.stringify(u.arguments ?? {}),
      }));
      out.push({
        role: 'assistant',
        text: stored.text ?? '',
        toolCalls,
        provider: stored.provider,
        ...(stored.raw === undefined || stored.raw === null ? {} : { raw: stored.raw }),
      });
    } else if (record.batchId && modelBatches.has(record.batchId)) {
      const result = record.content as ToolResult;
      const last = out[out.length - 1];
      if (last?.role === 'tool_results') last.results.push(result);
      else out.push({ role: 'tool_results', results: [result] });
    }
  }
  return out;
}
