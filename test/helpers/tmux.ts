import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

/**
 * tmux on a server private to this test process. On the shared default server, one file killing
 * its last session makes the server exit while another file is starting one ("server exited
 * unexpectedly"); a keeper session keeps this private server up until `closeTmux`.
 */
const SOCKET = `toolgate-test-${process.pid}`;
let started = false;

export function tmux(...args: string[]) {
  if (!started) {
    started = true;
    spawnSync('tmux', ['-L', SOCKET, 'new-session', '-d', '-s', 'keeper', 'sleep 3600']);
  }
  return spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
}

export function closeTmux(): void {
  if (!started) return;
  const socket = tmux('display', '-p', '-t', 'keeper', '#{socket_path}').stdout.trim();
  spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  if (socket.endsWith(SOCKET)) rmSync(socket, { force: true });
  started = false;
}
