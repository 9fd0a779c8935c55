import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted model server on 127.0.0.1 (a free port) for the real-host suite. One port speaks the
 * three hosts' wire formats: Anthropic Messages (`/v1/messages`, `/v1/messages/count_tokens`; Claude
 * Code), OpenAI Responses (`/v1/responses`; Codex) and Gemini (`:streamGenerateContent`,
 * `:generateContent`, `:countTokens`; gemini-cli).
 *
 * It answers like a model that only uses toolgate's tools, deciding from the conversation since the
 * last user message: no tool result yet → toolgate's `read_file` on `readPath`; the last result was
 * that read → toolgate's `write_file` of `writeContent` to `writePath`; otherwise a short text that
 * quotes the last result. A request that offers no toolgate `read_file` (titles, classifiers, a host
 * whose MCP server did not start) gets a plain text; one that wants JSON (gemini-cli's router) gets a
 * minimal instance of its schema. Every request is kept, parsed into one shape for all formats, so a
 * test asserts on what the host really sent.
 */
export interface ScriptOptions {
  readPath: string;
  writePath: string;
  writeContent: string;
  /** Merged into every tool call's arguments (e.g. gemini-cli's `wait_for_previous`). */
  extraArgs?: Record<string, unknown>;
}

/** A tool as offered to the model: its name as the host spells it, and its parameters' names. */
export interface OfferedTool {
  name: string;
  namespace?: string;
  /** The toolgate tool behind it (`read_file` for `mcp__toolgate__read_file`), when it is one. */
  toolgate?: string;
  properties: string[];
}

export type ConversationEntry =
  | { kind: 'user' }
  | { kind: 'call'; id?: string; name: string; toolgate?: string }
  | { kind: 'result'; id?: string; name?: string; text: string };

export type Decision =
  | { text: string }
  | { tool: string; namespace?: string; toolgate: string; args: Record<string, unknown> };

export interface Exchange {
  method: string;
  url: string;
  format: 'anthropic' | 'responses' | 'gemini' | 'other';
  tools: OfferedTool[];
  /** The whole conversation in the request, in order. */
  conversation: ConversationEntry[];
  reply?: Decision;
  /** The raw body, for messages on failure. */
  body: unknown;
}

export interface ModelServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

/** The toolgate tool a host's name stands for: Claude Code, gemini-cli and Codex spell it differently. */
export function toolgateToolName(name: string, namespace?: string): string | undefined {
  if (namespace === 'mcp__toolgate') return name;
  return /^mcp__toolgate__(.+)$/.exec(name)?.[1] ?? /^mcp_toolgate_(.+)$/.exec(name)?.[1];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const propertiesOf = (schema: unknown): string[] =>
  isObject(schema) && isObject(schema.properties) ? Object.keys(schema.properties) : [];

/** Text of a tool result in any of the formats' shapes. */
function textOf(c: unknown): string {
  if (c == null) return '';
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map(textOf).join('');
  if (isObject(c)) {
    if (typeof c.text === 'string') return c.text;
    // gemini-cli's failed MCP call: {error: "MCP tool … reported tool error … with response: [JSON]"}
    if (typeof c.error === 'string') return c.error;
    if (isObject(c.error) && typeof c.error.message === 'string') return c.error.message;
    if (c.content !== undefined) return textOf(c.content);
    if (c.output !== undefined) return textOf(c.output);
    return JSON.stringify(c);
  }
  return String(c);
}

function decide(conversation: ConversationEntry[], tools: OfferedTool[], script: ScriptOptions): Decision {
  const since = conversation.slice(conversation.map((e) => e.kind).lastIndexOf('user') + 1);
  const read = tools.find((t) => t.toolgate === 'read_file');
  const write = tools.find((t) => t.toolgate === 'write_file');
  if (!read) return { text: 'OK.' };
  const call = (tool: OfferedTool, args: Json): Decision => ({
    tool: tool.name,
    ...(tool.namespace ? { namespace: tool.namespace } : {}),
    toolgate: tool.toolgate!,
    args: { ...args, ...script.extraArgs },
  });
  const results = since.filter((e) => e.kind === 'result');
  const last = results.at(-1);
  if (!last) return call(read, { path: script.readPath });
  const lastCall = since.find(
    (e): e is Extract<ConversationEntry, { kind: 'call' }> =>
      e.kind === 'call' && (last.id !== undefined ? e.id === last.id : e.name === last.name),
  );
  const lastTool = lastCall?.toolgate ?? (last.name ? toolgateToolName(last.name) : undefined);
  if (lastTool === 'read_file' && write) {
    return call(write, { path: script.writePath, content: script.writeContent });
  }
  return { text: `Done. The last tool result was: ${last.text.slice(0, 400)}` };
}

// ---- Anthropic Messages (Claude Code) ----------------------------------------------------------

function anthropic(body: Json, res: ServerResponse, script: ScriptOptions, ex: Exchange): void {
  ex.format = 'anthropic';
  ex.tools = asArray(body.tools)
    .filter(isObject)
    .map((t) => {
      const name = str(t.name) ?? '';
      return { name, toolgate: toolgateToolName(name), properties: propertiesOf(t.input_schema) };
    });
  for (const m of asArray(body.messages).filter(isObject)) {
    if (typeof m.content === 'string') {
      if (m.role === 'user') ex.conversation.push({ kind: 'user' });
      continue;
    }
    let userText = false; // a new prompt may share the message that carries the previous results
    for (const b of asArray(m.content).filter(isObject)) {
      if (b.type === 'tool_use') {
        const name = str(b.name) ?? '';
        ex.conversation.push({ kind: 'call', id: str(b.id), name, toolgate: toolgateToolName(name) });
      }
      if (b.type === 'tool_result') {
        ex.conversation.push({ kind: 'result', id: str(b.tool_use_id), text: textOf(b.content) });
      }
      if (
        m.role === 'user' &&
        b.type === 'text' &&
        !String(b.text).trimStart().startsWith('<system-reminder>')
      ) {
        userText = true;
      }
    }
    if (userText) ex.conversation.push({ kind: 'user' });
  }
  const d = decide(ex.conversation, ex.tools, script);
  ex.reply = d;
  const id = nextId('msg_');
  const model = str(body.model) ?? 'scripted';
  const usage = {
    input_tokens: 10,
    output_tokens: 5,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  const block =
    'tool' in d
      ? { type: 'tool_use', id: nextId('toolu_'), name: d.tool, input: d.args }
      : { type: 'text', text: d.text };
  const stop = 'tool' in d ? 'tool_use' : 'end_turn';
  if (!body.stream) {
    const message = { id, type: 'message', role: 'assistant', model, content: [block], stop_reason: stop };
    json(res, { ...message, stop_sequence: null, usage });
    return;
  }
  const ev = sse(res);
  ev('message_start', {
    type: 'message_start',
    message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage },
  });
  if ('tool' in d) {
    ev('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { ...block, input: {} },
    });
    const delta = { type: 'input_json_delta', partial_json: JSON.stringify(d.args) };
    ev('content_block_delta', { type: 'content_block_delta', index: 0, delta });
  } else {
    const start = { type: 'text', text: '' };
    ev('content_block_start', { type: 'content_block_start', index: 0, content_block: start });
    const delta = { type: 'text_delta', text: d.text };
    ev('content_block_delta', { type: 'content_block_delta', index: 0, delta });
  }
  ev('content_block_stop', { type: 'content_block_stop', index: 0 });
  const delta = { stop_reason: stop, stop_sequence: null };
  ev('message_delta', { type: 'message_delta', delta, usage: { output_tokens: 5 } });
  ev('message_stop', { type: 'message_stop' });
  res.end();
}

// ---- OpenAI Responses (Codex) ------------------------------------------------------------------

function responses(body: Json, res: ServerResponse, script: ScriptOptions, ex: Exchange): void {
  ex.format = 'responses';
  for (const t of asArray(body.tools).filter(isObject)) {
    if (Array.isArray(t.tools)) {
      for (const s of t.tools.filter(isObject)) {
        const name = str(s.name) ?? '';
        const namespace = str(t.name);
        const tool: OfferedTool = { name, toolgate: toolgateToolName(name, namespace), properties: [] };
        if (namespace) tool.namespace = namespace;
        tool.properties = propertiesOf(s.parameters);
        ex.tools.push(tool);
      }
    } else if (typeof t.name === 'string') {
      ex.tools.push({
        name: t.name,
        toolgate: toolgateToolName(t.name),
        properties: propertiesOf(t.parameters),
      });
    }
  }
  const input = Array.isArray(body.input) ? body.input.filter(isObject) : [{ type: 'message', role: 'user' }];
  for (const it of input) {
    if (it.type === 'message' && it.role === 'user') ex.conversation.push({ kind: 'user' });
    if (it.type === 'function_call') {
      const name = str(it.name) ?? '';
      const toolgate = toolgateToolName(name, str(it.namespace));
      ex.conversation.push({ kind: 'call', id: str(it.call_id), name, toolgate });
    }
    if (it.type === 'function_call_output') {
      ex.conversation.push({ kind: 'result', id: str(it.call_id), text: textOf(it.output) });
    }
  }
  const d = decide(ex.conversation, ex.tools, script);
  ex.reply = d;
  let item: Json;
  if ('tool' in d) {
    item = {
      type: 'function_call',
      id: nextId('fc_'),
      call_id: nextId('call_'),
      name: d.tool,
      arguments: JSON.stringify(d.args),
      status: 'completed',
    };
    if (d.namespace) item.namespace = d.namespace;
  } else {
    const content = [{ type: 'output_text', text: d.text, annotations: [] }];
    item = { type: 'message', id: nextId('msg_'), role: 'assistant', status: 'completed', content };
  }
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  const created_at = Math.floor(Date.now() / 1000);
  const base = { id: nextId('resp_'), object: 'response', created_at, model: str(body.model) ?? 'scripted' };
  const ev = sse(res);
  ev('response.created', {
    type: 'response.created',
    response: { ...base, status: 'in_progress', output: [] },
  });
  const added = 'tool' in d ? { ...item, arguments: '' } : { ...item, content: [] };
  ev('response.output_item.added', { type: 'response.output_item.added', output_index: 0, item: added });
  if ('tool' in d) {
    const type = 'response.function_call_arguments.delta';
    ev(type, { type, item_id: item.id, output_index: 0, delta: item.arguments });
  } else {
    const type = 'response.output_text.delta';
    ev(type, { type, item_id: item.id, output_index: 0, content_index: 0, delta: d.text });
  }
  ev('response.output_item.done', { type: 'response.output_item.done', output_index: 0, item });
  const response = { ...base, status: 'completed', output: [item], usage };
  ev('response.completed', { type: 'response.completed', response });
  res.end();
}

// ---- Gemini (gemini-cli) -----------------------------------------------------------------------

function gemini(body: Json, res: ServerResponse, script: ScriptOptions, ex: Exchange, url: string): void {
  ex.format = 'gemini';
  for (const t of asArray(body.tools).filter(isObject)) {
    for (const f of asArray(t.functionDeclarations).filter(isObject)) {
      const name = str(f.name) ?? '';
      const properties = propertiesOf(f.parametersJsonSchema ?? f.parameters);
      ex.tools.push({ name, toolgate: toolgateToolName(name), properties });
    }
  }
  for (const c of asArray(body.contents).filter(isObject)) {
    const parts = asArray(c.parts).filter(isObject);
    if (c.role === 'user' && !parts.some((p) => p.functionResponse)) ex.conversation.push({ kind: 'user' });
    for (const p of parts) {
      if (isObject(p.functionCall)) {
        const name = str(p.functionCall.name) ?? '';
        ex.conversation.push({
          kind: 'call',
          id: str(p.functionCall.id),
          name,
          toolgate: toolgateToolName(name),
        });
      }
      if (isObject(p.functionResponse)) {
        const r = p.functionResponse;
        ex.conversation.push({ kind: 'result', id: str(r.id), name: str(r.name), text: textOf(r.response) });
      }
    }
  }
  const gc = isObject(body.generationConfig) ? body.generationConfig : {};
  const wantsJson = gc.responseMimeType === 'application/json';
  // side requests that want JSON (gemini-cli's model router, next-speaker checks): a minimal object
  const d: Decision = wantsJson
    ? { text: JSON.stringify(sampleOf(gc.responseJsonSchema ?? gc.responseSchema ?? {})) }
    : decide(ex.conversation, ex.tools, script);
  if (!wantsJson) ex.reply = d;
  const part = 'tool' in d ? { functionCall: { name: d.tool, args: d.args } } : { text: d.text };
  const chunk = {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: 'scripted',
  };
  if (url.includes(':streamGenerateContent')) {
    sse(res)(null, chunk);
    res.end();
  } else {
    json(res, chunk);
  }
}

/** A minimal instance of a JSON Schema (Gemini's upper-case types too). */
function sampleOf(schema: unknown): unknown {
  if (!isObject(schema)) return {};
  const type = String(schema.type ?? 'object').toLowerCase();
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (type === 'object') {
    const props = isObject(schema.properties) ? schema.properties : {};
    return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, sampleOf(v)]));
  }
  if (type === 'array') return [];
  if (type === 'integer' || type === 'number') return typeof schema.minimum === 'number' ? schema.minimum : 1;
  if (type === 'boolean') return false;
  return 'scripted';
}

// ---- plumbing ----------------------------------------------------------------------------------

let seq = 0;
const nextId = (prefix: string) => `${prefix}${++seq}`;

function sse(res: ServerResponse): (event: string | null, data: unknown) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  return (event, data) => res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
}

function json(res: ServerResponse, data: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(data));
}

function handle(req: IncomingMessage, raw: string, res: ServerResponse, script: ScriptOptions): Exchange {
  let body: Json = {};
  try {
    const parsed: unknown = raw ? JSON.parse(raw) : {};
    if (isObject(parsed)) body = parsed;
  } catch {}
  const url = req.url ?? '';
  const path = url.split('?')[0] ?? '';
  const method = req.method ?? '';
  const ex: Exchange = { method, url, format: 'other', tools: [], conversation: [], body };
  if (method === 'POST' && path.endsWith('/messages/count_tokens')) json(res, { input_tokens: 10 });
  else if (method === 'POST' && path.endsWith('/messages')) anthropic(body, res, script, ex);
  else if (method === 'POST' && path.endsWith('/responses')) responses(body, res, script, ex);
  else if (method === 'POST' && path.includes(':countTokens')) json(res, { totalTokens: 10 });
  else if (method === 'POST' && /:(stream)?generateContent$/i.test(path)) gemini(body, res, script, ex, url);
  else json(res, { error: { message: `scripted model server: nothing at ${method} ${path}` } }, 404);
  return ex;
}

export async function startModelServer(script: ScriptOptions): Promise<ModelServer> {
  const exchanges: Exchange[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        exchanges.push(handle(req, Buffer.concat(chunks).toString('utf8'), res, script));
      } catch (e) {
        if (!res.headersSent) json(res, { error: { message: String(e) } }, 500);
        else res.end();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
