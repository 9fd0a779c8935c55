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
    const text = (await response.text().catch(() => '')).slice(0, 200);
    throw failure(settings, `HTTP ${response.status}${text ? `: ${text}` : ''}`);
  }
  const body = (await response.json().catch(() => undefined)) as
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
    if (!Array.isArray(e) || e.length === 0 || !e.every((x) => typeof x === 'number' && Number.isFinite(x)))
      throw failure(settings, `embedding ${at} is not a list of numbers (base64 encoding is not supported)`);
    vectors[at] = unit(Float32Array.from(e as number[]));
  });
  if (vectors.some((v) => v === undefined))
    throw failure(settings, 'the "index" fields do not cover the input');
  return vectors;
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
