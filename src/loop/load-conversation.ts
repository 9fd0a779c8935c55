import type { AssistantToolCall, ConversationMessage, ProviderKind } from '../core/conversation.js';
import { errorResult } from '../core/make-result.js';
import type { ToolResult } from '../core/tool-result.js';
import type { ConversationLog } from '../journal/journal.js';

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
export function loadConversation(journal: ConversationLog, session: string): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  const modelBatches = new Set<string>();
  let open: { calls: AssistantToolCall[]; results: Map<string, ToolResult> } | undefined;
  // Providers refuse a tool call without its result and a result without its call: each model
  // turn gets exactly its calls' results, in call order; a missing one (a crash) says so.
  const close = () => {
    if (!open || open.calls.length === 0) {
      open = undefined;
      return;
    }
    const pending = open;
    out.push({
      role: 'tool_results',
      results: pending.calls.map(
        (c) =>
          pending.results.get(c.id) ??
          errorResult(
            c.id,
            c.name,
            'Internal',
            'no result was recorded for this call (the run was interrupted)',
          ),
      ),
    });
    open = undefined;
  };
  for (const record of journal.messages(session)) {
    if (record.role === 'user') {
      const text = (record.content as { text?: unknown }).text;
      if (typeof text !== 'string') continue;
      close();
      out.push({ role: 'user', text });
    } else if (record.role === 'assistant') {
      const stored = record.content as StoredAssistant;
      if (!stored.provider) continue;
      close();
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
      open = { calls: toolCalls, results: new Map() };
    } else if (record.batchId && modelBatches.has(record.batchId) && open) {
      const result = record.content as ToolResult;
      if (open.calls.some((c) => c.id === result.id)) open.results.set(result.id, result);
    }
  }
  close();
  return out;
}
