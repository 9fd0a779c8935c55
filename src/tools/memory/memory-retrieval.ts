import type { Embedder } from './embeddings-client.js';
import type { IndexedEntry, SqliteMemoryStore } from './memory-store.js';

export interface RetrievalSettings {
  /** Absent: words only (FTS5). */
  embedder?: Embedder | undefined;
  vectorWeight: number;
  ftsWeight: number;
}

export interface MemoryHit {
  key: string;
  text: string;
  source: 'note' | 'memory' | 'conversation';
  /** 0–1, higher is better: fts_weight × BM25 (relative to the best) + vector_weight × cosine. */
  score: number;
}

export interface Retrieval {
  hits: MemoryHit[];
  mode: 'hybrid' | 'fts';
  /** Why the search was words only, or what it could not do, in words the model can act on. */
  note?: string;
}

/** Entries embedded on the fly per search (saved before embeddings were configured, or whose embedding failed). */
const BACKFILL_PER_SEARCH = 256;

/**
 * Search over one namespace of the memory store: FTS5 (BM25) always; with an embeddings endpoint,
 * hybrid: each candidate's score is `fts_weight × bm25/best + vector_weight × cosine`, candidates
 * being the best by either. Vectors are kept per entry and model and cached here until the store
 * changes. An endpoint that fails turns the search into words only, said in `note`, never an error.
 */
export class MemoryRetrieval {
  #cache:
    | { generation: string; namespace: string; rows: (IndexedEntry & { vector: Float32Array })[] }
    | undefined;
  /** When every entry of the namespace last had a vector. */
  #complete: { generation: string; namespace: string } | undefined;

  constructor(
    private readonly store: SqliteMemoryStore,
    private readonly settings: RetrievalSettings,
  ) {}

  async search(namespace: string, query: string, limit: number, signal: AbortSignal): Promise<Retrieval> {
    const pool = Math.max(limit * 4, 40);
    const fts = this.store.search(namespace, query, pool);
    const best = fts.reduce((m, h) => Math.max(m, h.score), 0);
    const ftsScore = new Map(fts.map((h) => [h.id, best > 0 ? h.score / best : 0]));
    const { embedder, vectorWeight, ftsWeight } = this.settings;
    if (!embedder) {
      return {
        mode: 'fts',
        hits: fts.slice(0, limit).map((h) => hit(h, ftsScore.get(h.id) ?? 0)),
        note: 'words only (FTS5): set [tools.memory] embeddings for hybrid search by meaning',
      };
    }
    let queryVector: Float32Array;
    let note: string | undefined;
    try {
      note = await this.#backfill(embedder, namespace, signal);
      [queryVector] = (await embedder.embed([query], signal)) as [Float32Array];
    } catch (error) {
      if (signal.aborted) throw error;
      return {
        mode: 'fts',
        hits: fts.slice(0, limit).map((h) => hit(h, ftsScore.get(h.id) ?? 0)),
        note: `words only this time: ${(error as Error).message}`,
      };
    }
    const rows = this.#vectors(embedder.model, namespace);
    const byId = new Map<number, { entry: IndexedEntry; cosine: number }>();
    for (const row of rows) byId.set(row.id, { entry: row, cosine: dot(row.vector, queryVector) });
    const byMeaning = [...byId.values()].sort((a, b) => b.cosine - a.cosine).slice(0, pool);
    const candidates = new Map<number, IndexedEntry>();
    for (const { entry } of byMeaning) candidates.set(entry.id, entry);
    for (const h of fts) candidates.set(h.id, h);
    const scored = [...candidates.values()].map((entry) => {
      const cosine = Math.max(0, byId.get(entry.id)?.cosine ?? 0);
      return hit(entry, ftsWeight * (ftsScore.get(entry.id) ?? 0) + vectorWeight * cosine);
    });
    scored.sort((a, b) => b.score - a.score);
    return {
      mode: 'hybrid',
      hits: scored.filter((h) => h.score > 0).slice(0, limit),
      ...(note ? { note } : {}),
    };
  }

  /** Embeds one entry just saved; a failure leaves it to the next search's backfill. */
  async embedOne(
    namespace: string,
    key: string,
    text: string,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const { embedder } = this.settings;
    if (!embedder) return undefined;
    const id = this.store.idOf(namespace, key);
    if (id === undefined) return undefined;
    try {
      const [vector] = await embedder.embed([text], signal);
      if (vector) this.store.putVector(id, embedder.model, text, vector);
      return undefined;
    } catch (error) {
      if (signal.aborted) throw error;
      return `saved, but searchable by words only until it can be embedded: ${(error as Error).message}`;
    }
  }

  async #backfill(embedder: Embedder, namespace: string, signal: AbortSignal): Promise<string | undefined> {
    const generation = this.store.generation();
    // Nothing changed since every entry had its vector: no need to look again.
    if (this.#complete?.generation === generation && this.#complete.namespace === namespace) return undefined;
    const missing = this.store.unembedded(namespace, embedder.model, BACKFILL_PER_SEARCH + 1);
    if (missing.length === 0) {
      this.#complete = { generation, namespace };
      return undefined;
    }
    const batch = missing.slice(0, BACKFILL_PER_SEARCH);
    const vectors = await embedder.embed(
      batch.map((m) => m.value),
      signal,
    );
    for (const [i, m] of batch.entries()) {
      this.store.putVector(m.id, embedder.model, m.value, vectors[i] as Float32Array);
    }
    return missing.length > BACKFILL_PER_SEARCH
      ? `more entries still await embedding (${BACKFILL_PER_SEARCH} are embedded per search); until then they are found by words only`
      : undefined;
  }

  #vectors(model: string, namespace: string) {
    const generation = this.store.generation();
    const cache = this.#cache;
    if (cache && cache.generation === generation && cache.namespace === namespace) return cache.rows;
    const rows = this.store.withVectors(namespace, model);
    this.#cache = { generation: this.store.generation(), namespace, rows };
    return rows;
  }
}

function hit(entry: IndexedEntry, score: number): MemoryHit {
  return {
    key: entry.key,
    text: entry.value,
    source: entry.key.startsWith('note-') ? 'note' : 'memory',
    score: Math.round(score * 10_000) / 10_000,
  };
}

function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0; // another model's size: not comparable
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}
