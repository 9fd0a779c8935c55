import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(REPO, 'bin', 'toolgate.js');

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI (compiled dist/, as `npx toolgate` does) in a child process. */
export function runCli(args: string[], options: { cwd?: string; input?: string } = {}): CliRun {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? REPO,
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
