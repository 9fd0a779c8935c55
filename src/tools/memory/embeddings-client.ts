import { ToolError } from '../../core/tool-error.js';

export interface EmbeddingsSettings {
  /** An OpenAI-compatible endpoint: `…/v1/embeddings` (Ollama, llama.cpp, vLLM, OpenAI). */
  url: string;
  model: string;
  apiKey: string | undefined;
  timeoutMs: number;
}

/** Texts → unit vectors (so cosine similarity is a dot product). */
export type Embedder = {
  readonly model: string;
  embed(texts: readonly string[], signal: AbortSignal): Promise<Float32Array[]>;
};

/** Inputs per request: servers cap a batch (OpenAI 2048, llama.cpp by context); small is safe everywhere. */
const BATCH = 64;
/** Above any model in use (OpenAI's largest has 3,072; 4,096 is common for 7B-based ones). */
const MAX_DIMENSIONS = 8192;
/** A batch of 64 vectors of MAX_DIMENSIONS as JSON is under 16 MiB; an answer past this is cut off. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * A client for `POST /v1/embeddings` (`{model, input: [...]}` → `{data: [{index, embedding}]}`),
 * the wire format every local and hosted embeddings server speaks. Vectors come back normalized;
 * an answer of the wrong shape, count or size is an error naming the endpoint, never a silent zero.
 */
export function createEmbedder(settings: EmbeddingsSettings): Embedder {
  let dimensions: number | undefined;
  return {
    model: settings.model,
    async embed(texts, signal) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        const batch = texts.slice(i, i + BATCH);
        const vectors = await request(settings, batch, signal);
        for (const v of vectors) {
          dimensions ??= v.length;
          if (v.length !== dimensions)
            throw failure(settings, `a vector of ${v.length} numbers after ones of ${dimensions}`);
          out.push(v);
        }
      }
      return out;
    },
  };
}

async function request(settings: EmbeddingsSettings, input: readonly string[], signal: AbortSignal) {
  let response: Response;
  try {
    response = await fetch(settings.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: settings.model, input }),
      signal: AbortSignal.any([signal, AbortSignal.timeout(settings.timeoutMs)]),
    });
  } catch (error) {
    if (signal.aborted) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw failure(settings, cause?.code ?? cause?.message ?? (error as Error).message);
  }
  if (!response.ok) {
    // Only the start of an error's text is worth reading (a huge or compressed body is cut off).
    const text = (await readUpTo(response, 200).catch(() => '')).trim();
    throw failure(settings, `HTTP ${response.status}${text ? `: ${text}` : ''}`);
  }
  const body = (await readJson(response, settings, signal)) as
    | { data?: { index?: number; embedding?: unknown }[] }
    | undefined;
  const data = body?.data;
  if (!Array.isArray(data) || data.length !== input.length)
    throw failure(
      settings,
      `expected ${input.length} embeddings in "data", got ${Array.isArray(data) ? data.length : 'none'}`,
    );
  const vectors: Float32Array[] = new Array(input.length);
  data.forEach((item, position) => {
    const at = typeof item.index === 'number' ? item.index : position;
    const e = item.embedding;
    if (!Array.isArray(e) || e.length === 0 || !e.every((x) => typeof x === 'number'))
      throw failure(settings, `embedding ${at} is not a list of numbers (base64 encoding is not supported)`);
    if (e.length > MAX_DIMENSIONS)
      throw failure(settings, `embedding ${at} has ${e.length} numbers, more than ${MAX_DIMENSIONS}`);
    // Stored as 32-bit floats: a number past their range (1e39) would make every score NaN.
    const vector = unit(Float32Array.from(e as number[]));
    if (!vector.every(Number.isFinite))
      throw failure(settings, `embedding ${at} holds a number that is not finite as a 32-bit float`);
    if (at < 0 || at >= input.length || !Number.isInteger(at))
      throw failure(settings, 'the "index" fields do not cover the input');
    vectors[at] = vector;
  });
  if (vectors.some((v) => v === undefined))
    throw failure(settings, 'the "index" fields do not cover the input');
  return vectors;
}

/** At most `max` bytes of the body; `cut` when there was more (which is then never read). */
async function readCapped(response: Response, max: number): Promise<{ bytes: Buffer; cut: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { bytes: Buffer.alloc(0), cut: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(chunks), cut: false };
      chunks.push(value);
      size += value.byteLength;
      if (size > max) return { bytes: Buffer.concat(chunks).subarray(0, max), cut: true };
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** Up to `max` bytes of the body as text. */
async function readUpTo(response: Response, max: number): Promise<string> {
  return (await readCapped(response, max)).bytes.toString('utf8');
}

/** The body as JSON, read up to MAX_RESPONSE_BYTES: a server sending more is cut off, not buffered. */
async function readJson(
  response: Response,
  settings: EmbeddingsSettings,
  signal: AbortSignal,
): Promise<unknown> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > MAX_RESPONSE_BYTES) {
    await response.body?.cancel().catch(() => {});
    throw failure(settings, `an answer of ${declared} bytes, more than ${MAX_RESPONSE_BYTES}`);
  }
  let read: { bytes: Buffer; cut: boolean };
  try {
    read = await readCapped(response, MAX_RESPONSE_BYTES);
  } catch (error) {
    if (signal.aborted) throw error;
    throw failure(settings, `the answer broke off (${(error as Error).message})`);
  }
  if (read.cut) throw failure(settings, `an answer of more than ${MAX_RESPONSE_BYTES} bytes`);
  if (read.bytes.length === 0 && !response.body) return undefined;
  try {
    return JSON.parse(read.bytes.toString('utf8')) as unknown;
  } catch {
    throw failure(settings, 'the answer is not JSON');
  }
}

function unit(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / norm;
  return v;
}

function failure(settings: EmbeddingsSettings, what: string): ToolError {
  return new ToolError(
    'ExecutionFailed',
    `the embeddings endpoint ${settings.url} (model ${settings.model}) failed: ${what}; check [tools.memory] embeddings`,
  );
}
