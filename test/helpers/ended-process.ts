import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO } from '../cli/run-cli.js';

/**
 * The id (as process-identity.ts writes it) of a real process of this machine that has ended and
 * been reaped: what a SIGKILLed toolgate leaves in its batches' owner and lease.
 */
export function endedProcessId(): string {
  const module = path.join(REPO, 'src', 'journal', 'process-identity.ts');
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `import(${JSON.stringify(module)}).then((m) => process.stdout.write(m.thisProcess()))`,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (run.status !== 0 || !run.stdout) throw new Error(`could not start a process to end: ${run.stderr}`);
  return run.stdout; // spawnSync has waited for it: gone, not a zombie
}
