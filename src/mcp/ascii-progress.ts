import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * Progress notifications whose message is printable ASCII, tab and newline only (a command's
 * output, mostly): the params object is marked here when it is made, and the stdio transport
 * writes it without JSON.stringify, which looks at every character (about 1 GB/s: most of the
 * time of a command printing a gigabyte). Only `"`, `\`, tab and newline need escaping in such
 * text, and `replaceAll` finds them at memchr speed.
 */
const asciiParams = new WeakSet<object>();

export interface ProgressParams {
  progressToken: string | number;
  progress: number;
  message: string;
}

/** The params of a progress notification, marked when its message is known to be plain ASCII. */
export function progressParams(params: ProgressParams, ascii: boolean): ProgressParams {
  if (ascii) asciiParams.add(params);
  return params;
}

/** The JSON-RPC line for a marked notification, or undefined to let JSON.stringify do it. */
export function asciiProgressLine(message: JSONRPCMessage): string | undefined {
  if (!('method' in message) || message.method !== 'notifications/progress') return undefined;
  const params = message.params as ProgressParams | undefined;
  if (!params || !asciiParams.has(params)) return undefined;
  const { progressToken, progress, message: text } = params;
  if (Object.keys(params).length !== 3 || typeof progress !== 'number' || typeof text !== 'string')
    return undefined;
  const escaped = text
    .replaceAll('\\', '\\\\')
    .replaceAll('"', '\\"')
    .replaceAll('\t', '\\t')
    .replaceAll('\n', '\\n');
  return `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${JSON.stringify(progressToken)},"progress":${JSON.stringify(progress)},"message":"${escaped}"}}\n`;
}
