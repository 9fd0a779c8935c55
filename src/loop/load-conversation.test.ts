import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteJournal } from '../journal/sqlite-journal.js';
import { loadConversation } from './load-conversation.js';

const ok = (id: string, name: string, content: string) => ({
  id,
  name,
  ok: true,
  content,
  error: null,
  latencyMs: 0,
});

describe('loadConversation: a session back from the journal, valid for any provider', () => {
  it("each model turn gets exactly its calls' results in call order; a missing one says so; exec batches stay out", () => {
    const journal = SqliteJournal.open(path.join(mkdtempSync(path.join(tmpdir(), 'toolgate-conv-')), 'j.db'));
    journal.appendMessage('S', 'user', { text: 'read a and b' });
    const calls = [
      { id: 'a', name: 'read_file', arguments: '{"path":"a"}' },
      { id: 'b', name: 'read_file', arguments: '{"path":"b"}' },
    ];
    const batch = journal.beginBatch('S', calls, {
      assistantText: 'ok',
      assistant: { provider: 'anthropic', raw: [{ type: 'text', text: 'ok' }] },
    });
    journal.recordResult(batch, 0, ok('a', 'read_file', 'A'));
    // A batch from `toolgate exec` (no provider) in the same session is not part of the conversation.
    const exec = journal.beginBatch('S', [{ id: 'x', name: 'read_file', arguments: { path: 'x' } }]);
    journal.recordResult(exec, 0, ok('x', 'read_file', 'X'));
    journal.appendMessage('S', 'user', { text: 'and now?' });
    const conversation = loadConversation(journal, 'S');
    expect(conversation.map((m) => m.role)).toEqual(['user', 'assistant', 'tool_results', 'user']);
    const results = conversation[2]?.role === 'tool_results' ? conversation[2].results : [];
    expect(results.map((r) => [r.id, r.ok])).toEqual([
      ['a', true],
      ['b', false],
    ]);
    expect(results[1]?.content).toMatch(/no result was recorded/);
    const assistant = conversation[1];
    expect(assistant?.role === 'assistant' && assistant.raw).toEqual([{ type: 'text', text: 'ok' }]);
    journal.close();
  });
});
