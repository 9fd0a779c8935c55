import { scrubEnv } from './env-scrub.js';

/**
 * The environment of toolgate's own short-lived helpers (ripgrep, mkfifo, git, ps …): the
 * scrubbed one, as a command gets. A helper inherits nothing secret, so a command running at
 * the same time finds no credential in the helper's `/proc/<pid>/environ` (issue #30 §8).
 */
export function helperEnv(): NodeJS.ProcessEnv {
  return scrubEnv(process.env);
}
