import type { AssistantToolCall, ProviderKind } from '../../src/core/conversation.js';
import { adapterFor } from '../../src/providers/adapters.js';
import { SseParser } from '../../src/providers/sse-parser.js';
import { ToolCallAccumulator } from '../../src/providers/tool-call-accumulator.js';

export interface Decoded {
  text: string;
  reasoning: string;
  finish: string | undefined;
  complete: boolean;
  calls: AssistantToolCall[];
  raw: unknown;
}

/** Runs a whole stream body through an adapter's decoder and the accumulator, as streamTurn does. */
export function decodeStream(kind: ProviderKind, body: string, chunkSize = 0): Decoded {
  const decoder = adapterFor(kind).createDecoder();
  const parser = new SseParser();
  const acc = new ToolCallAccumulator({ idPrefix: 'made_' });
  const out: Decoded = {
    text: '',
    reasoning: '',
    finish: undefined,
    complete: false,
    calls: [],
    raw: undefined,
  };
  const chunks: string[] = [];
  if (chunkSize > 0)
    for (let i = 0; i < body.length; i += chunkSize) chunks.push(body.slice(i, i + chunkSize));
  else chunks.push(body);
  const events = [...chunks.flatMap((c) => parser.push(c)), ...parser.end()];
  for (const e of events) {
    for (const ev of decoder.push(e)) {
      if (ev.type === 'text_delta') out.text += ev.text;
      else if (ev.type === 'reasoning_delta') out.reasoning += ev.text;
      else if (ev.type === 'finish') out.finish = ev.reason;
      else if (ev.type !== 'usage') acc.apply(ev);
    }
  }
  const end = decoder.end();
  out.complete = end.complete;
  out.raw = end.raw;
  out.calls = acc.finish();
  return out;
}

/** A `.jsonl` recording (one data payload per line) as an SSE body. */
export function jsonlToSse(text: string, appendDone: boolean): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return lines.map((l) => `data: ${l}\n\n`).join('') + (appendDone ? 'data: [DONE]\n\n' : '');
}
