import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolError } from '../../core/tool-error.js';
import type { MemoryHandle } from './memory-handle.js';

export interface MemorySettings {
  /** The store, opened on first use and shared with the note tools. */
  memory: MemoryHandle;
  /** The project's and user's namespace (memory-namespace.ts): no other namespace is visible. */
  namespace: string;
}

const args = z.strictObject({
  action: z.enum(['get', 'set', 'delete', 'list', 'search']).describe('What to do.'),
  key: z.string().min(1).max(200).optional().describe('The key (get, set, delete).'),
  value: z.string().max(65_536).optional().describe('The value to store (set).'),
  query: z.string().min(1).max(500).optional().describe('Words to search keys and values for (search).'),
  limit: z.number().int().min(1).max(20).default(5).describe('Most search results (search).'),
});

/**
 * memory (seed 001 §Persistent Storage, Properties 50–52): persistent key → value notes that outlive
 * the session, searchable by words (FTS5, BM25). Only toolgate's own store changes (category
 * `memory`): it never asks.
 */
export function createMemoryTool(settings: MemorySettings) {
  const opened = () => settings.memory.get().store;
  const ns = settings.namespace;
  return defineTool({
    name: 'memory',
    description:
      'Persistent memory that outlives the session: set, get or delete a value by key, list the keys, or search keys and values by words.',
    args,
    tier: 'side_effecting',
    category: 'memory',
    summary: (a) =>
      a.action === 'search'
        ? `Search memory: ${a.query ?? ''}`
        : a.action === 'list'
          ? 'List memory keys'
          : `Memory ${a.action} ${a.key ?? ''}`,
    dispose: async () => settings.memory.close(),
    async execute(a, ctx) {
      const need = (field: 'key' | 'value' | 'query') => {
        const v = a[field];
        if (v === undefined) throw new ToolError('BadArgs', `${a.action} needs ${field}`);
        return v;
      };
      switch (a.action) {
        case 'set': {
          const key = need('key');
          const value = need('value');
          opened().set(ns, key, value);
          const note = await settings.memory.get().retrieval.embedOne(ns, key, value, ctx.signal);
          return { content: `Stored ${key}${note ? ` (${note})` : ''}`, metadata: { key } };
        }
        case 'get': {
          const key = need('key');
          const entry = opened().get(ns, key);
          if (!entry)
            throw new ToolError(
              'NotFound',
              `nothing is stored under ${JSON.stringify(key)}; list the keys to see what is`,
            );
          return { content: entry.value, metadata: { key, updatedAt: entry.updatedAt } };
        }
        case 'delete': {
          const key = need('key');
          if (!opened().delete(ns, key))
            throw new ToolError('NotFound', `nothing is stored under ${JSON.stringify(key)}`);
          return { content: `Deleted ${key}`, metadata: { key } };
        }
        case 'list': {
          const keys = opened().keys(ns);
          return { content: keys.length ? keys.join('\n') : 'Memory is empty.', metadata: { keys } };
        }
        case 'search': {
          const found = await settings.memory.get().retrieval.search(ns, need('query'), a.limit, ctx.signal);
          const content = found.hits.length
            ? found.hits.map((h) => `${h.key} (score ${h.score.toFixed(2)}): ${h.text}`).join('\n')
            : 'Nothing in memory matches.';
          return {
            content,
            display: `${found.hits.length} found (${found.mode})`,
            metadata: {
              retrieval: found.mode,
              ...(found.note ? { note: found.note } : {}),
              results: found.hits.map(({ key, text, score }) => ({ key, value: text, score })),
            },
          };
        }
      }
    },
  });
}
