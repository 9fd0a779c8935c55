import { symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { globGates as gates } from '../helpers/glob-gates.js';
import { makeTempDir } from '../helpers/workspace.js';

/** Issue #13 item 11: glob neither walks out through a link in the pattern nor hangs on a pattern. */
describe('glob under attack (issue #13)', () => {
  it('a link in the literal part of the pattern is not followed out of the root', async () => {
    const root = makeTempDir('toolgate-glob-');
    symlinkSync('/', path.join(root, 'rootlink'));
    symlinkSync('/etc', path.join(root, 'etclink'));
    writeFileSync(path.join(root, 'mine.txt'), 'x');
    for (const [engine, gate] of Object.entries(gates(root))) {
      for (const pattern of [
        'rootlink/etc/pass*',
        'etclink/*',
        'rootlink/**/passwd',
        '*/etc/passwd',
        'etclink/pass?d',
      ]) {
        const [r] = await gate.execute([{ id: '1', name: 'glob', arguments: { pattern } }]);
        const listed = r?.ok && !r.content.startsWith('No files match') ? r.content.split('\n') : [];
        expect(
          listed.filter((l) => /passwd|shadow|hosts|etc/.test(l)),
          `${engine}: ${pattern}`,
        ).toEqual([]);
      }
    }
  });

  it('patterns that backtrack for minutes in a regex engine answer at once (or are refused), without stalling other calls', async () => {
    const root = makeTempDir('toolgate-glob-');
    const long = 'a'.repeat(31);
    writeFileSync(path.join(root, long), 'x');
    writeFileSync(path.join(root, `${'a'.repeat(200)}.txt`), 'x');
    const evil = [
      '**/+(*)Q',
      '**/*(a|aa)*(a|aa)*(a|aa)Q',
      '*a*a*a*a*a*a*a*a*b',
      '*a*/*a*/*a*/*a*b',
      '**/@(a|a)*(a)b',
    ];
    for (const [engine, gate] of Object.entries(gates(root))) {
      for (const pattern of evil) {
        const started = Date.now();
        const other = gates(root).ripgrep.execute([
          { id: 'o', name: 'list_directory', arguments: { path: '.' } },
        ]);
        const [r] = await gate.execute([{ id: '1', name: 'glob', arguments: { pattern } }]);
        const [listed] = await other;
        expect(listed?.ok, listed?.content).toBe(true);
        // Either no match or a refusal that says why; never minutes of matching.
        expect(r?.ok === true ? r.content : r?.error?.type, `${engine}: ${pattern}`).toMatch(
          /No files match|BadArgs/,
        );
        expect(Date.now() - started, `${engine}: ${pattern}`).toBeLessThan(10_000);
      }
    }
  });
});
