import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolError } from '../../core/tool-error.js';
import type { SqliteMemoryStore } from './memory-store.js';

export interface MemorySettings {
  /** Opens the store on first use (a command that never uses memory never opens its file). */
  open: () => SqliteMemoryStore;
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
  let store: SqliteMemoryStore | undefined;
  const opened = () => {
    store ??= settings.open();
    return store;
  };
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
    dispose: async () => {
      store?.close();
      store = undefined;
    },
    execute(a) {
      const need = (field: 'key' | 'value' | 'query') => {
        const v = a[field];
        if (v === undefined) throw new ToolError('BadArgs', `${a.action} needs ${field}`);
        return v;
      };
      switch (a.action) {
        case 'set': {
          const key = need('key');
          opened().set(ns, key, need('value'));
          return { content: `Stored ${key}`, metadata: { key } };
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
          const hits = opened().search(ns, need('query'), a.limit);
          const content = hits.length
            ? hits.map((h) => `${h.key} (score ${h.score.toFixed(2)}): ${h.value}`).join('\n')
            : 'Nothing in memory matches.';
          return {
            content,
            metadata: { results: hits.map(({ key, value, score }) => ({ key, value, score })) },
          };
        }
      }
    },
  });
}
