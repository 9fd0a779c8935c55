import { spawn } from 'node:child_process';

/**
 * Runs `script` (an ES module; TypeScript imports go through tsx) in a child process until it
 * prints `marker`, then kills it with SIGKILL and waits until it is gone: a process that dies right
 * there, with whatever it wrote and nothing it would have done after.
 */
export async function killedAt(script: string, marker: string): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes(marker)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`the child exited before "${marker}" (${code})`)));
  });
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
}
