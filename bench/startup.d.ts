// Types of bench/startup.js for the tests that reuse its probes (test/cli/bundle.test.ts).
export interface ProbeOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}
export function mcpToolsList(
  command: string,
  args: string[],
  options?: ProbeOptions,
): Promise<{ ms: number; tools: number; list: unknown }>;
export function runToExit(
  command: string,
  args: string[],
  options?: ProbeOptions & { input?: string },
): Promise<{ ms: number; code: number | null; stdout: string }>;
export function evictPageCache(): boolean;
export function startup(options?: { rounds?: number; coldRounds?: number }): Promise<string[][]>;
