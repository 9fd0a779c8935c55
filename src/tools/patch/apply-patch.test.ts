import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gateFor } from '../../../test/helpers/gate.js';
import { snapshotTree } from '../../../test/helpers/tree.js';
import { useWorkspace } from '../../../test/helpers/workspace.js';

const envelope = (...body: string[]) => ['*** Begin Patch', ...body, '*** End Patch'].join('\n');

describe('apply_patch', () => {
  const ws = useWorkspace();
  const read = (rel: string) => readFileSync(path.join(ws.dir(), rel), 'utf8');
  async function setup(files: Record<string, string>, tools: Record<string, unknown> = {}) {
    for (const [rel, content] of Object.entries(files)) ws.file(rel, content);
    const g = gateFor(ws.dir(), tools);
    for (const rel of Object.keys(files)) expect((await g.call('read_file', { path: rel })).ok).toBe(true);
    return g;
  }

  it('adds, updates, moves and deletes in one patch, reporting each file', async () => {
    const { call } = await setup({ 'a.txt': 'one\ntwo\nthree\n', 'gone.txt': 'x\n', 'm.txt': 'move me\n' });
    const r = await call('apply_patch', {
      patch: envelope(
        '*** Add File: new/b.txt',
        '+hello',
        '*** Update File: a.txt',
        '@@',
        ' one',
        '-two',
        '+TWO',
        '*** Delete File: gone.txt',
        '*** Update File: m.txt',
        '*** Move to: moved/m.txt',
        '@@',
        '-move me',
        '+moved',
      ),
    });
    expect(r.ok).toBe(true);
    expect(r.content.split('\n')).toEqual([
      'created: new/b.txt',
      'modified: a.txt',
      'deleted: gone.txt',
      'deleted: m.txt',
      'created: moved/m.txt (moved from m.txt)',
    ]);
    expect(read('a.txt')).toBe('one\nTWO\nthree\n');
    expect(read('new/b.txt')).toBe('hello\n');
    expect(read('moved/m.txt')).toBe('moved\n');
    expect(existsSync(path.join(ws.dir(), 'gone.txt'))).toBe(false);
  });

  it('T-PATCH-01: a failure in a later file leaves every file as it was', async () => {
    const { call } = await setup({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const before = snapshotTree(ws.dir());
    const r = await call('apply_patch', {
      patch: envelope(
        '*** Add File: c.txt',
        '+c',
        '*** Update File: a.txt',
        '@@',
        '-a',
        '+A',
        '*** Update File: b.txt',
        '@@',
        '-nope',
        '+B',
      ),
    });
    expect(r.error?.type).toBe('PatchFailed');
    expect(r.content).toMatch(/b\.txt: chunk at patch line \d+: the lines to replace were not found/);
    expect(snapshotTree(ws.dir())).toEqual(before);
  });

  it('T-PATCH-01: a write that fails after others succeeded is rolled back', async () => {
    const { call } = await setup({ 'a.txt': 'a\n', blocker: 'I am a file, not a directory\n' });
    const before = snapshotTree(ws.dir());
    const r = await call('apply_patch', {
      patch: envelope('*** Update File: a.txt', '@@', '-a', '+A', '*** Add File: blocker/inside.txt', '+x'),
    });
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(/every file was restored/);
    expect(snapshotTree(ws.dir())).toEqual(before);
  });

  it('refuses an ambiguous match and names the candidate lines', async () => {
    const { call } = await setup({ 'dup.txt': 'x\nsame\ny\nsame\nz\n' });
    const r = await call('apply_patch', {
      patch: envelope('*** Update File: dup.txt', '@@', '-same', '+changed'),
    });
    expect(r.error?.type).toBe('PatchFailed');
    expect(r.content).toMatch(/occur 2 times \(at lines 2, 4\)/);
    expect(read('dup.txt')).toBe('x\nsame\ny\nsame\nz\n');
    // More context settles it.
    const ok = await call('apply_patch', {
      patch: envelope('*** Update File: dup.txt', '@@', ' y', '-same', '+changed'),
    });
    expect(ok.ok).toBe(true);
    expect(read('dup.txt')).toBe('x\nsame\ny\nchanged\nz\n');
  });

  it('anchors a pure addition right after its @@ context line; nested @@ lines narrow the search', async () => {
    const { call } = await setup({
      'c.py': 'class A:\n    def m(self):\n        pass\nclass B:\n    def m(self):\n        pass\n',
    });
    const r = await call('apply_patch', {
      patch: envelope('*** Update File: c.py', '@@ class B:', '@@     def m(self):', '+        """doc"""'),
    });
    expect(r.ok).toBe(true);
    expect(read('c.py')).toBe(
      'class A:\n    def m(self):\n        pass\nclass B:\n    def m(self):\n        """doc"""\n        pass\n',
    );
  });

  it('keeps CRLF line endings and a BOM', async () => {
    const { call } = await setup({ 'w.txt': '\uFEFFa\r\nb\r\nc\r\n' });
    const r = await call('apply_patch', {
      patch: envelope('*** Update File: w.txt', '@@', ' a', '-b', '+B', '+B2', ' c'),
    });
    expect(r.ok).toBe(true);
    expect(readFileSync(path.join(ws.dir(), 'w.txt')).toString('utf8')).toBe('\uFEFFa\r\nB\r\nB2\r\nc\r\n');
  });

  it('matches despite trailing whitespace and Unicode punctuation differences', async () => {
    const { call } = await setup({ 'u.txt': 'say “hi” — ok   \nnext\n' });
    const r = await call('apply_patch', {
      patch: envelope('*** Update File: u.txt', '@@', '-say "hi" - ok', '+said'),
    });
    expect(r.ok).toBe(true);
    expect(read('u.txt')).toBe('said\nnext\n');
  });

  it('*** End of File anchors the chunk to the end', async () => {
    const { call } = await setup({ 'e.txt': 'x\nend\nx\nend\n' });
    const r = await call('apply_patch', {
      patch: envelope('*** Update File: e.txt', '@@', ' x', '-end', '+END', '*** End of File'),
    });
    expect(r.ok).toBe(true);
    expect(read('e.txt')).toBe('x\nend\nx\nEND\n');
  });

  it('accepts unified diffs: modify, new, delete, rename with changes', async () => {
    const { call } = await setup({
      'src/a.ts': 'const a = 1;\nconst b = 2;\n',
      'old.txt': 'bye\n',
      'r1.txt': 'keep\nchange\n',
    });
    const diff = [
      'diff --git a/src/a.ts b/src/a.ts',
      'index 111..222 100644',
      '--- a/src/a.ts',
      '+++ b/src/a.ts',
      '@@ -1,2 +1,2 @@',
      ' const a = 1;',
      '-const b = 2;',
      '+const b = 3;',
      'diff --git a/n.txt b/n.txt',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/n.txt',
      '@@ -0,0 +1,2 @@',
      '+line1',
      '+line2',
      '\\ No newline at end of file',
      'diff --git a/old.txt b/old.txt',
      'deleted file mode 100644',
      '--- a/old.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
      'diff --git a/r1.txt b/r2.txt',
      'similarity index 50%',
      'rename from r1.txt',
      'rename to r2.txt',
      '--- a/r1.txt',
      '+++ b/r2.txt',
      '@@ -1,2 +1,2 @@',
      ' keep',
      '-change',
      '+changed',
      '',
    ].join('\n');
    const r = await call('apply_patch', { patch: diff });
    expect(r.ok, r.content).toBe(true);
    expect(read('src/a.ts')).toBe('const a = 1;\nconst b = 3;\n');
    expect(read('n.txt')).toBe('line1\nline2');
    expect(existsSync(path.join(ws.dir(), 'old.txt'))).toBe(false);
    expect(existsSync(path.join(ws.dir(), 'r1.txt'))).toBe(false);
    expect(read('r2.txt')).toBe('keep\nchanged\n');
  });

  it('a unified diff hunk whose text repeats is placed by its line numbers', async () => {
    const { call } = await setup({ 'rep.txt': 'a\nx\nb\na\nx\nb\n' });
    const diff = ['--- a/rep.txt', '+++ b/rep.txt', '@@ -4,3 +4,3 @@', ' a', '-x', '+Y', ' b', ''].join('\n');
    expect((await call('apply_patch', { patch: diff })).ok).toBe(true);
    expect(read('rep.txt')).toBe('a\nx\nb\na\nY\nb\n');
  });

  it('FR-TOOL-PATCH-02a/b: an unread file or one changed since reading is StaleFile, nothing written', async () => {
    ws.file('s.txt', 'v1\n');
    const { call } = gateFor(ws.dir());
    const patch = envelope('*** Update File: s.txt', '@@', '-v1', '+v2');
    const unread = await call('apply_patch', { patch });
    expect(unread.error?.type).toBe('StaleFile');
    expect(unread.content).toMatch(/not read in this session/);
    await call('read_file', { path: 's.txt' });
    writeFileSync(path.join(ws.dir(), 's.txt'), 'v1\n'); // same bytes: still fresh (hash, not mtime)
    expect(
      (await call('apply_patch', { patch: envelope('*** Update File: s.txt', '@@', '-v1', '+v1b') })).ok,
    ).toBe(true);
    writeFileSync(path.join(ws.dir(), 's.txt'), 'someone else\n');
    const changed = await call('apply_patch', {
      patch: envelope('*** Update File: s.txt', '@@', '-someone else', '+v3'),
    });
    expect(changed.error?.type).toBe('StaleFile');
    expect(changed.content).toMatch(/changed since it was last read/);
    expect(read('s.txt')).toBe('someone else\n');
  });

  it('after its own successful patch, the session may patch again without a re-read', async () => {
    const { call } = await setup({ 'k.txt': '1\n' });
    expect(
      (await call('apply_patch', { patch: envelope('*** Update File: k.txt', '@@', '-1', '+2') })).ok,
    ).toBe(true);
    expect(
      (await call('apply_patch', { patch: envelope('*** Update File: k.txt', '@@', '-2', '+3') })).ok,
    ).toBe(true);
    expect(read('k.txt')).toBe('3\n');
  });

  it('the guard can be switched off by config', async () => {
    ws.file('g.txt', 'a\n');
    const { call } = gateFor(ws.dir(), { edit: { require_read_before_write: false } });
    expect(
      (await call('apply_patch', { patch: envelope('*** Update File: g.txt', '@@', '-a', '+b') })).ok,
    ).toBe(true);
  });

  it('validates every path, Move to targets included, before writing anything', async () => {
    const { call } = await setup({ 'a.txt': 'a\n' });
    const before = snapshotTree(ws.dir());
    for (const patch of [
      envelope('*** Update File: a.txt', '*** Move to: ../escaped.txt', '@@', '-a', '+b'),
      envelope('*** Update File: a.txt', '@@', '-a', '+b', '*** Add File: /tmp/abs.txt', '+x'),
      envelope('*** Add File: .toolgate/x', '+x'),
    ]) {
      const r = await call('apply_patch', { patch });
      expect(r.ok).toBe(false);
      expect(['SandboxViolation']).toContain(r.error?.type);
    }
    expect(snapshotTree(ws.dir())).toEqual(before);
  });

  it('max_patch_bytes is enforced', async () => {
    const { call } = await setup({}, { apply_patch: { max_patch_bytes: 100 } });
    const r = await call('apply_patch', { patch: envelope('*** Add File: big.txt', `+${'x'.repeat(200)}`) });
    expect(r.error?.type).toBe('LimitExceeded');
  });

  it('parse errors say the line and what is expected', async () => {
    const { call } = await setup({});
    const cases: [string, RegExp][] = [
      ['hello', /must start with '\*\*\* Begin Patch'/],
      ['*** Begin Patch\n*** Update File: a\n', /last line of the patch must be/],
      [envelope('*** Update File: a.txt'), /line 2: update file hunk for path 'a.txt' is empty/],
      [envelope('*** Update File: a.txt', '@@', 'bad line'), /line 4: unexpected line in update hunk/],
      [envelope(), /changes no files/],
    ];
    for (const [patch, message] of cases) {
      const r = await call('apply_patch', { patch });
      expect(r.error?.type, patch).toBe('PatchFailed');
      expect(r.content).toMatch(message);
    }
  });

  it('a directory cannot be deleted by a patch', async () => {
    mkdirSync(path.join(ws.dir(), 'dir'));
    const { call } = await setup({});
    const r = await call('apply_patch', { patch: envelope('*** Delete File: dir') });
    expect(r.ok).toBe(false);
    expect(existsSync(path.join(ws.dir(), 'dir'))).toBe(true);
  });
});
