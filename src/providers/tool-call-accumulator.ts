import type { AssistantToolCall } from '../core/conversation.js';
import type { StreamEvent } from '../core/stream-event.js';

interface Slot {
  key: string;
  id: string;
  name: string;
  arguments: string;
  closed: boolean;
  order: number;
}

type ToolCallEvent = Extract<StreamEvent, { type: 'tool_call_start' | 'tool_call_delta' | 'tool_call_end' }>;

/** True when `text` is empty (means `{}`) or one whole JSON value. */
export function isCompleteJson(text: string): boolean {
  if (text.trim() === '') return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds whole tool calls from a provider's fragments (providers.md §0 and §6), keyed by the
 * provider's stream key. Names are set once and never concatenated; an empty id or name means
 * "absent"; a different non-empty id at an open key starts a new call only when the open call's
 * JSON is already complete (servers that rotate ids per fragment stay one call); arguments are
 * only judged when a call closes; missing ids are made up and kept.
 */
export class ToolCallAccumulator {
  readonly #slots: Slot[] = [];
  readonly #byKey = new Map<string, Slot>();
  readonly #onClosed: ((call: AssistantToolCall, index: number) => void) | undefined;
  readonly #idPrefix: string;

  /** `onClosed` sees each call the moment it is whole, in close order (FR-RES-04a journaling). */
  constructor(
    options: { onClosed?: (call: AssistantToolCall, index: number) => void; idPrefix?: string } = {},
  ) {
    this.#onClosed = options.onClosed;
    this.#idPrefix = options.idPrefix ?? `toolgate_${Date.now().toString(36)}_`;
  }

  get size(): number {
    return this.#slots.length;
  }

  apply(event: ToolCallEvent): void {
    const current = this.#byKey.get(event.key);
    if (event.type === 'tool_call_start') {
      const newId = event.id ? event.id : undefined;
      const startsNew =
        !current ||
        current.closed ||
        (newId !== undefined &&
          current.id !== '' &&
          newId !== current.id &&
          current.arguments.trim() !== '' &&
          isCompleteJson(current.arguments));
      if (startsNew) {
        if (current && !current.closed) this.#close(current);
        this.#open(event.key, newId ?? '', event.name ?? '', event.arguments ?? '');
        return;
      }
      if (!current.id && newId) current.id = newId;
      if (!current.name && event.name) current.name = event.name;
      if (event.arguments) current.arguments += event.arguments;
      return;
    }
    if (event.type === 'tool_call_delta') {
      const slot = current && !current.closed ? current : this.#open(event.key, '', '', '');
      slot.arguments += event.arguments;
      return;
    }
    const slot = current && !current.closed ? current : undefined;
    if (!slot) return;
    // A restated full argument string (Responses `.done`, LM Studio) is authoritative.
    if (event.arguments !== undefined && event.arguments !== '') slot.arguments = event.arguments;
    this.#close(slot);
  }

  /** Closes what is still open and returns every call in the order it was opened. */
  finish(): AssistantToolCall[] {
    for (const slot of this.#slots) if (!slot.closed) this.#close(slot);
    return this.#slots.map((s) => toCall(s));
  }

  #open(key: string, id: string, name: string, args: string): Slot {
    const slot: Slot = { key, id, name, arguments: args, closed: false, order: this.#slots.length };
    this.#slots.push(slot);
    this.#byKey.set(key, slot);
    return slot;
  }

  #close(slot: Slot): void {
    slot.closed = true;
    if (!slot.id) slot.id = `${this.#idPrefix}${slot.order}`;
    this.#onClosed?.(toCall(slot), slot.order);
  }
}

function toCall(slot: Slot): AssistantToolCall {
  const call: AssistantToolCall = { id: slot.id, name: slot.name, arguments: slot.arguments };
  if (!isCompleteJson(slot.arguments)) {
    call.problem = `the arguments of ${slot.name || 'a tool call'} are not complete JSON (the output was cut off); the call was not run`;
  } else if (!slot.name) {
    call.problem = 'a tool call arrived without a tool name; the call was not run';
  }
  return call;
}
