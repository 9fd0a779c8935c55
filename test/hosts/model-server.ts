import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted model server on 127.0.0.1 (a free port) for the real-host suite. One port speaks the
 * hosts' wire formats: Anthropic Messages (`/v1/messages`, `/v1/messages/count_tokens`; Claude
 * Code), OpenAI Responses (`/v1/responses`; Codex), Gemini (`:streamGenerateContent`,
 * `:generateContent`, `:countTokens`; gemini-cli) and OpenAI Chat Completions
 * (`/v1/chat/completions`, streamed or not, and `GET /v1/models`; opencode, Kilo CLI, qwen-code,
 * Continue, Copilot CLI).
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
  /**
   * toolgate's tool names, for a host that offers MCP tools under their own names (Continue:
   * `read_file`): a tool of exactly such a name is toolgate's. Other hosts prefix them, and their
   * built-ins may share a name with toolgate's (gemini-cli's and qwen-code's own `read_file`).
   */
  unprefixed?: readonly string[];
}

/** A tool as offered to the model: its name as the host spells it, and its parameters' names. */
export interface OfferedTool {
  name: string;
  namespace?: string;
  /** The toolgate tool behind it (`read_file` for `mcp__toolgate__read_file`), when it is one. */
  toolgate?: string;
  properties: string[];
  /**
   * Offered only through the host's tool search (qwen-code's deferred tools): named in a reminder,
   * its schema shown by a `tool_search` result, called through `tool_call` as `{name, arguments}`.
   */
  deferred?: true;
  /** A deferred tool whose schema a `tool_search` result has shown the model. */
  reviewed?: true;
}

export type ConversationEntry =
  | { kind: 'user' }
  | { kind: 'call'; id?: string; name: string; toolgate?: string }
  | { kind: 'result'; id?: string; name?: string; text: string };

export type Decision =
  | { text: string }
  | { tool: string; namespace?: string; toolgate?: string; args: Record<string, unknown> };

export interface Exchange {
  method: string;
  url: string;
  format: 'anthropic' | 'responses' | 'gemini' | 'chat' | 'other';
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

/**
 * The toolgate tool a host's name stands for. Claude Code and qwen-code spell it
 * `mcp__toolgate__read_file`, Codex `read_file` in namespace `mcp__toolgate`, gemini-cli
 * `mcp_toolgate_read_file`, opencode and Kilo `toolgate_read_file`, Copilot `toolgate-read_file`,
 * Continue `read_file` (see `unprefixed`).
 */
export function toolgateToolName(
  name: string,
  namespace?: string,
  unprefixed?: readonly string[],
): string | undefined {
  if (namespace === 'mcp__toolgate') return name;
  if (unprefixed) return unprefixed.includes(name) ? name : undefined;
  return /^(?:mcp__toolgate__|mcp_toolgate_|toolgate_|toolgate-)(.+)$/.exec(name)?.[1];
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

/** qwen-code's tool search over deferred tools, the most one search returns, and its bridge call. */
const TOOL_SEARCH = 'tool_search';
const TOOL_SEARCH_MAX = 20;
const TOOL_CALL = 'tool_call';

function decide(conversation: ConversationEntry[], tools: OfferedTool[], script: ScriptOptions): Decision {
  const since = conversation.slice(conversation.map((e) => e.kind).lastIndexOf('user') + 1);
  const read = tools.find((t) => t.toolgate === 'read_file');
  const write = tools.find((t) => t.toolgate === 'write_file');
  if (!read) return { text: 'OK.' };
  // Deferred tools (qwen-code): the model first reviews their schemas, as a real one must for tools
  // it was only told the names of, then calls them through the host's tool_call.
  const unreviewed = tools.filter((t) => t.deferred && t.toolgate && !t.reviewed).map((t) => t.name);
  if (read.deferred && unreviewed.length > 0) {
    const names = unreviewed.slice(0, TOOL_SEARCH_MAX);
    return { tool: TOOL_SEARCH, args: { query: `select:${names.join(',')}`, max_results: names.length } };
  }
  const call = (tool: OfferedTool, args: Json): Decision => {
    const all = { ...args, ...script.extraArgs };
    if (tool.deferred) {
      return { tool: TOOL_CALL, toolgate: tool.toolgate, args: { name: tool.name, arguments: all } };
    }
    const namespace = tool.namespace ? { namespace: tool.namespace } : {};
    return { tool: tool.name, ...namespace, toolgate: tool.toolgate, args: all };
  };
  const callOf = (r: Extract<ConversationEntry, { kind: 'result' }>) =>
    since.find(
      (e): e is Extract<ConversationEntry, { kind: 'call' }> =>
        e.kind === 'call' && (r.id !== undefined ? e.id === r.id : e.name === r.name),
    );
  const results = since.filter(
    (e): e is Extract<ConversationEntry, { kind: 'result' }> =>
      e.kind === 'result' && callOf(e)?.name !== TOOL_SEARCH,
  );
  const last = results.at(-1);
  if (!last) return call(read, { path: script.readPath });
  const lastTool = callOf(last)?.toolgate ?? (last.name ? toolgateToolName(last.name) : undefined);
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

// ---- OpenAI Chat Completions (opencode, Kilo CLI, qwen-code, Continue, Copilot CLI) ------------

/** The model the chat-completions hosts are configured with; `GET /v1/models` lists it. */
export const CHAT_MODEL = 'scripted-model';

function chat(body: Json, res: ServerResponse, script: ScriptOptions, ex: Exchange): void {
  ex.format = 'chat';
  for (const t of asArray(body.tools).filter(isObject)) {
    const f = isObject(t.function) ? t.function : t;
    const name = str(f.name) ?? '';
    const toolgate = toolgateToolName(name, undefined, script.unprefixed);
    ex.tools.push({ name, toolgate, properties: propertiesOf(f.parameters) });
  }
  const searches = new Set<string>(); // ids of tool_search calls
  const reviewed: string[] = []; // their results
  for (const m of asArray(body.messages).filter(isObject)) {
    if (m.role === 'user') ex.conversation.push({ kind: 'user' });
    for (const c of asArray(m.tool_calls).filter(isObject)) {
      const f = isObject(c.function) ? c.function : {};
      const name = str(f.name) ?? '';
      const toolgate =
        name === TOOL_CALL
          ? toolgateToolName(str(parseArgs(f.arguments).name) ?? '')
          : toolgateToolName(name, undefined, script.unprefixed);
      const id = str(c.id);
      if (id && name === TOOL_SEARCH) searches.add(id);
      ex.conversation.push({ kind: 'call', id, name, toolgate });
    }
    if (m.role === 'tool') {
      const id = str(m.tool_call_id);
      const text = textOf(m.content);
      ex.conversation.push({ kind: 'result', id, text });
      if (id && searches.has(id)) reviewed.push(text);
    }
  }
  if (ex.tools.some((t) => t.name === TOOL_SEARCH)) {
    const declared = new Set(ex.tools.map((t) => t.name));
    const schemas = new Map(reviewed.flatMap(reviewedSchemas));
    for (const name of deferredNames(asArray(body.messages))) {
      if (declared.has(name)) continue;
      const schema = schemas.get(name);
      const tool: OfferedTool = { name, properties: propertiesOf(schema), deferred: true };
      const toolgate = toolgateToolName(name);
      if (toolgate) tool.toolgate = toolgate;
      if (schema !== undefined) tool.reviewed = true;
      ex.tools.push(tool);
    }
  }
  const format = isObject(body.response_format) ? body.response_format : {};
  const wantsJson = format.type === 'json_schema' || format.type === 'json_object';
  const schema = isObject(format.json_schema) ? format.json_schema.schema : undefined;
  // side requests that want JSON (titles, summaries): a minimal instance of their schema
  const d: Decision = wantsJson
    ? { text: JSON.stringify(sampleOf(schema ?? {})) }
    : decide(ex.conversation, ex.tools, script);
  if (!wantsJson) ex.reply = d;
  const base = {
    id: nextId('chatcmpl-'),
    created: Math.floor(Date.now() / 1000),
    model: str(body.model) ?? CHAT_MODEL,
  };
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const toolCall =
    'tool' in d
      ? {
          id: nextId('call_'),
          type: 'function',
          function: { name: d.tool, arguments: JSON.stringify(d.args) },
        }
      : undefined;
  const text = 'text' in d ? d.text : '';
  const finish = toolCall ? 'tool_calls' : 'stop';
  if (!body.stream) {
    const message = toolCall
      ? { role: 'assistant', content: null, tool_calls: [toolCall] }
      : { role: 'assistant', content: text };
    const choices = [{ index: 0, message, finish_reason: finish }];
    json(res, { ...base, object: 'chat.completion', choices, usage });
    return;
  }
  // streamed: the call's name first and its arguments in a later delta, as real servers send them
  const ev = sse(res);
  const chunk = (delta: Json, finish_reason: string | null) =>
    ev(null, { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason }] });
  if (toolCall) {
    const opening = { index: 0, ...toolCall, function: { name: toolCall.function.name, arguments: '' } };
    chunk({ role: 'assistant', content: null, tool_calls: [opening] }, null);
    chunk({ tool_calls: [{ index: 0, function: { arguments: toolCall.function.arguments } }] }, null);
  } else {
    chunk({ role: 'assistant', content: '' }, null);
    chunk({ content: text }, null);
  }
  chunk({}, finish);
  const streamOptions = isObject(body.stream_options) ? body.stream_options : {};
  if (streamOptions.include_usage) ev(null, { ...base, object: 'chat.completion.chunk', choices: [], usage });
  res.write('data: [DONE]\n\n');
  res.end();
}

/**
 * The tools a host's reminder says are reachable only through `tool_search` (qwen-code: a
 * `<system-reminder>` that names them as `- "mcp__toolgate__read_file": "…"`).
 */
function deferredNames(messages: unknown[]): string[] {
  const names: string[] = [];
  for (const m of messages.filter(isObject)) {
    for (const block of textOf(m.content).split('<system-reminder>').slice(1)) {
      if (!block.includes(TOOL_SEARCH)) continue;
      for (const match of block.matchAll(/^- "([^"]+)":/gm)) if (match[1]) names.push(match[1]);
    }
  }
  return names;
}

/**
 * Name → parameter schema of each tool a `tool_search` result declares (qwen-code: `<functions>`,
 * one `<function>{"name", "description", "parametersJsonSchema"}</function>` per tool).
 */
function reviewedSchemas(text: string): [string, unknown][] {
  const found: [string, unknown][] = [];
  for (const match of text.matchAll(/<function>(.*?)<\/function>/gs)) {
    const declared = parseArgs(match[1]);
    const name = str(declared.name);
    if (name) found.push([name, declared.parametersJsonSchema ?? declared.parameters ?? {}]);
  }
  return found;
}

/** A tool call's arguments: a JSON string (or, from some hosts, already an object). */
function parseArgs(args: unknown): Json {
  if (isObject(args)) return args;
  try {
    const parsed: unknown = JSON.parse(String(args ?? '{}'));
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
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
  else if (method === 'POST' && path.endsWith('/chat/completions')) chat(body, res, script, ex);
  else if (method === 'GET' && path.endsWith('/models')) {
    json(res, {
      object: 'list',
      data: [{ id: CHAT_MODEL, object: 'model', created: 0, owned_by: 'scripted' }],
    });
  } else json(res, { error: { message: `scripted model server: nothing at ${method} ${path}` } }, 404);
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
