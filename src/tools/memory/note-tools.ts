import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolError } from '../../core/tool-error.js';
import { type ConversationMessage, searchConversation } from './conversation-search.js';
import type { MemoryHandle } from './memory-handle.js';

export interface NoteToolSettings {
  memory: MemoryHandle;
  namespace: string;
  /** The session's conversation in the journal; absent when none is kept (no journal, or MCP). */
  conversation?: (() => readonly ConversationMessage[]) | undefined;
  /** The weight of words in a score, for conversation hits (they have no vectors). */
  ftsWeight: number;
}

const NOTE_ID = /^note-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const noteId = z
  .string()
  .regex(NOTE_ID, 'a note_id looks like note-<uuid>, as memory_save or memory_search returned it')
  .describe('The note, as memory_save or memory_search returned it (note-<uuid>).');
const content = z.string().min(1).max(65_536).describe('The text of the note.');

/**
 * The note tools of seed 003 (§Memory Tools): memory_search, memory_save, memory_update and
 * memory_delete over the same store and namespace as `memory` (one store, two surfaces). Notes are
 * entries keyed `note-{uuid}`; search returns them and `memory` entries alike, with their source.
 * Only toolgate's own store changes (category `memory`): none of them asks.
 */
export function createNoteTools(settings: NoteToolSettings) {
  const ns = settings.namespace;
  const open = () => settings.memory.get();
  const dispose = async () => settings.memory.close();
  const missing = (id: string) =>
    new ToolError('NotFound', `no note ${id} in this memory; memory_search finds notes and their ids`);

  const search = defineTool({
    name: 'memory_search',
    description:
      "Search the user's memory (notes and stored values) by meaning and words; optionally this conversation too. Returns a JSON array of {text, source, score, note_id}, best first.",
    args: z.strictObject({
      query: z.string().min(1).max(500).describe('What to look for.'),
      top_k: z.number().int().min(1).max(20).default(5).describe('Most results (default 5, at most 20).'),
      include_conversation: z.boolean().default(false).describe("Also search this session's conversation."),
    }),
    tier: 'read_only',
    category: 'memory',
    summary: (a) => `Search memory: ${a.query}`,
    dispose,
    async execute(a, ctx) {
      const found = await open().retrieval.search(ns, a.query, a.top_k, ctx.signal);
      const notes = found.note ? [found.note] : [];
      let hits = found.hits;
      if (a.include_conversation) {
        if (settings.conversation) {
          const weight = found.mode === 'hybrid' ? settings.ftsWeight : 1;
          const said = searchConversation(settings.conversation(), a.query, {
            limit: a.top_k,
            weight,
            callId: ctx.callId,
          });
          hits = [...hits, ...said].sort((x, y) => y.score - x.score).slice(0, a.top_k);
        } else {
          notes.push(
            'no conversation is kept for this session (no journal, or the MCP client keeps its own)',
          );
        }
      }
      const results = hits.map((h) => ({ text: h.text, source: h.source, score: h.score, note_id: h.key }));
      return {
        content: JSON.stringify(results, null, 1),
        display: `${results.length} found (${found.mode === 'hybrid' ? 'meaning and words' : 'words only'})`,
        metadata: { retrieval: found.mode, ...(notes.length ? { notes } : {}), count: results.length },
      };
    },
  });

  const save = defineTool({
    name: 'memory_save',
    description: "Save a new note to the user's memory; returns its note_id.",
    args: z.strictObject({ content }),
    tier: 'side_effecting',
    category: 'memory',
    summary: (a) => `Save a note (${a.content.length} characters)`,
    dispose,
    async execute(a, ctx) {
      const id = `note-${randomUUID()}`;
      open().store.set(ns, id, a.content);
      const later = await open().retrieval.embedOne(ns, id, a.content, ctx.signal);
      const answer = { note_id: id, message: later ? `Note saved; ${later}` : 'Note saved.' };
      return { content: JSON.stringify(answer), metadata: answer };
    },
  });

  const update = defineTool({
    name: 'memory_update',
    description: 'Replace the content of an existing note, keeping its note_id.',
    args: z.strictObject({ note_id: noteId, content }),
    tier: 'side_effecting',
    category: 'memory',
    summary: (a) => `Update note ${a.note_id}`,
    dispose,
    async execute(a, ctx) {
      const { store, retrieval } = open();
      if (store.idOf(ns, a.note_id) === undefined) throw missing(a.note_id);
      store.set(ns, a.note_id, a.content);
      const later = await retrieval.embedOne(ns, a.note_id, a.content, ctx.signal);
      const answer = { note_id: a.note_id, message: later ? `Note updated; ${later}` : 'Note updated.' };
      return { content: JSON.stringify(answer), metadata: answer };
    },
  });

  const remove = defineTool({
    name: 'memory_delete',
    description: "Delete a note from the user's memory by its note_id.",
    args: z.strictObject({ note_id: noteId }),
    tier: 'side_effecting',
    category: 'memory',
    summary: (a) => `Delete note ${a.note_id}`,
    dispose,
    execute(a) {
      if (!open().store.delete(ns, a.note_id)) throw missing(a.note_id);
      const answer = { message: `Note ${a.note_id} deleted.` };
      return { content: JSON.stringify(answer), metadata: answer };
    },
  });

  return { search, save, update, remove };
}
