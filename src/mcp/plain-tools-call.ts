/**
 * A `tools/call` request of the plain shape every MCP host sends, recognised without the SDK's
 * zod schemas. The SDK validates each incoming request about nine times over (the message union,
 * three type guards, the task check, the call schema twice, the result): in a fresh server that
 * is most of a read's round trip. Only a request whose every key is understood takes this lane;
 * anything else (a task-augmented call, an extra key, an odd id) returns undefined and goes
 * through the SDK, which validates it in full. So does an own `__proto__` key in the arguments or
 * `_meta` (JSON.parse makes one; the SDK's copy drops it), so both lanes see the same request.
 */
export interface PlainToolsCall {
  id: string | number;
  params: PlainToolsCallParams;
}

export interface PlainToolsCallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: { progressToken?: string | number; [key: string]: unknown };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keys are checked against a list, so a key the lane does not understand sends it to the SDK. */
const onlyKeys = (value: Record<string, unknown>, allowed: readonly string[]) => {
  for (const key in value) if (!allowed.includes(key)) return false;
  return true;
};

const isId = (value: unknown): value is string | number =>
  typeof value === 'string' || Number.isSafeInteger(value);

/** Task-augmented calls (the SDK's related-task key) are the SDK's to handle. */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

export function plainToolsCall(message: unknown): PlainToolsCall | undefined {
  if (!isRecord(message) || message.method !== 'tools/call' || message.jsonrpc !== '2.0') return undefined;
  if (!onlyKeys(message, ['jsonrpc', 'id', 'method', 'params'])) return undefined;
  const { id, params } = message;
  if (!isId(id) || !isRecord(params) || typeof params.name !== 'string') return undefined;
  if (!onlyKeys(params, ['name', 'arguments', '_meta'])) return undefined;
  const args = params.arguments;
  if (args !== undefined && (!isRecord(args) || Object.hasOwn(args, '__proto__'))) return undefined;
  const meta = params._meta;
  if (meta !== undefined) {
    if (!isRecord(meta) || RELATED_TASK in meta || Object.hasOwn(meta, '__proto__')) return undefined;
    if (meta.progressToken !== undefined && !isId(meta.progressToken)) return undefined;
  }
  return { id, params: params as unknown as PlainToolsCallParams };
}
