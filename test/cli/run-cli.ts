import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect } from 'vitest';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(REPO, 'bin', 'toolgate.js');

/**
 * The CLI's own config directory in tests (XDG_CONFIG_HOME: the trust store of `toolgate trust`),
 * one temp directory per test process, so no test reads or writes the person's real one.
 */
let configHome: string | undefined;
export function testConfigHome(): string {
  configHome ??= mkdtempSync(path.join(tmpdir(), 'toolgate-config-home-'));
  return configHome;
}
// Removed after each test file (vitest's workers end without an 'exit' event to hang this on).
afterAll(() => {
  if (configHome) rmSync(configHome, { recursive: true, force: true });
  configHome = undefined;
});

/** The tests' config home, unless a test names another one itself (copying process.env is not naming). */
export function configHomeFor(env: Record<string, string | undefined> | undefined): string {
  const named = env?.XDG_CONFIG_HOME;
  return named !== undefined && named !== process.env.XDG_CONFIG_HOME ? named : testConfigHome();
}

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI (compiled dist/, as `npx toolgate` does) in a child process. */
export function runCli(
  args: string[],
  options: { cwd?: string; input?: string; env?: Record<string, string> } = {},
): CliRun {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? REPO,
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, FORCE_COLOR: '0', ...options.env, XDG_CONFIG_HOME: configHomeFor(options.env) },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * `toolgate trust DIR`, as a person does once they have read a project's toolgate.toml: from then
 * on all of it applies (an untrusted one only tightens the policy). In the tests' config home.
 */
export function trustProject(dir: string, env: Record<string, string> = {}): void {
  const run = runCli(['trust', dir], { env });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
}
