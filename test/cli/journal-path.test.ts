import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/workspace.js';
import { runCli } from './run-cli.js';

const CALL = JSON.stringify([{ id: '1', name: 'list_directory', arguments: { path: '.' } }]);

describe('issue #31 §3: a mistyped --journal path is refused, not made', () => {
  it.each([
    ['exec', (j: string) => ['exec', '--journal', j]],
    ['mode show', (j: string) => ['mode', 'show', '--journal', j]],
    ['journal list', (j: string) => ['journal', 'list', '--journal', j]],
  ])(
    '%s: a folder that does not exist is named, with how to create it; nothing is created or run',
    (_, args) => {
      const root = makeTempDir('toolgate-journal-path-');
      const typo = path.join(root, 'sate', 'deep', 'j.db');
      const run = runCli(args(typo), { cwd: root, input: CALL });
      expect(run.status).toBe(2);
      expect(run.stderr).toBe(
        `toolgate: --journal ${typo}: the folder ${path.dirname(typo)} does not exist; check the path, or create the folder first (mkdir -p ${path.dirname(typo)})\n`,
      );
      expect(run.stdout).toBe('');
      expect(existsSync(path.join(root, 'sate'))).toBe(false);
      expect(existsSync(path.join(root, '.toolgate'))).toBe(false);
    },
  );

  it('a relative path is named as given, the folder resolved; a folder with a space is quoted to paste', () => {
    const root = makeTempDir('toolgate-journal-path-');
    const run = runCli(['exec', '--journal', 'my state/j.db'], { cwd: root, input: CALL });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      `toolgate: --journal my state/j.db: the folder ${root}/my state does not exist; check the path, or create the folder first (mkdir -p '${root}/my state')\n`,
    );
  });

  it('a file where the folder should be is refused too', () => {
    const root = makeTempDir('toolgate-journal-path-');
    writeFileSync(path.join(root, 'state'), 'not a folder');
    const run = runCli(['exec', '--journal', path.join(root, 'state', 'j.db')], { cwd: root, input: CALL });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--journal .*: .*\/state is not a folder; check the path\n$/);
  });

  it('a folder that exists: the journal is made there; the default location is still made on first use', () => {
    const root = makeTempDir('toolgate-journal-path-');
    mkdirSync(path.join(root, 'state'));
    const given = runCli(['exec', '--journal', 'state/j.db'], { cwd: root, input: CALL });
    expect(given.status, given.stderr).toBe(0);
    expect(existsSync(path.join(root, 'state', 'j.db'))).toBe(true);
    const byDefault = runCli(['exec'], { cwd: root, input: CALL });
    expect(byDefault.status, byDefault.stderr).toBe(0);
    expect(existsSync(path.join(root, '.toolgate', 'journal.db'))).toBe(true);
  });
});
