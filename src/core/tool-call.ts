/** One tool call as a model asked for it. `arguments` may be raw JSON text (streamed providers). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown> | string;
}

/** Why an input document could not be read as tool calls; callers exit 2 / reject the batch. */
export class ToolCallShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolCallShapeError';
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Accepts our own shape and the OpenAI shape `{id, type:"function", function:{name, arguments}}`.
 * Missing `arguments` means `{}`. Anything else is a shape error naming the call, counted from 1 as people count.
 */
export function normalizeToolCall(value: unknown, index: number): ToolCall {
  if (!isPlainObject(value)) throw new ToolCallShapeError(`call ${index + 1} is not a JSON object`);
  let name: unknown = value.name;
  let args: unknown = value.arguments;
  if (isPlainObject(value.function)) {
    name = value.function.name;
    args = value.function.arguments;
  }
  if (typeof value.id !== 'string') throw new ToolCallShapeError(`call ${index + 1} has no string "id"`);
  if (typeof name !== 'string') throw new ToolCallShapeError(`call ${index + 1} has no string "name"`);
  if (args === undefined || args === null) args = {};
  if (typeof args !== 'string' && !isPlainObject(args)) {
    throw new ToolCallShapeError(`call ${index + 1} "arguments" must be an object or a JSON string`);
  }
  return { id: value.id, name, arguments: args as ToolCall['arguments'] };
}

/** A batch document: an array of calls or `{"calls": [...]}` (DESIGN §2.2). */
export function parseToolCallBatch(document: unknown): ToolCall[] {
  const list = isPlainObject(document) && Array.isArray(document.calls) ? document.calls : document;
  if (!Array.isArray(list)) {
    throw new ToolCallShapeError('expected a JSON array of tool calls or {"calls": [...]}');
  }
  return list.map((entry, index) => normalizeToolCall(entry, index));
}
