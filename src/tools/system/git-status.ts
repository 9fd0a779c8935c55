import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolError } from '../../core/tool-error.js';
import { fitJson } from '../../output/fit-json.js';
import { gitSafetyEnv, withGitSafety } from '../git/git-safety-env.js';
import { scrubEnv } from '../shell/env-scrub.js';
import { runQuiet } from './run-quiet.js';

const args = z.strictObject({
  path: z
    .string()
    .min(1)
    .default('.')
    .describe('A directory inside the repository, relative to the workspace root.'),
});

/** The answer's JSON (MCP outputSchema); `truncated` when the lists were cut to the output limit. */
export const gitStatusSchema = z.object({
  branch: z.string().nullable(),
  upstream: z.string().nullable(),
  ahead: z.number(),
  behind: z.number(),
  staged: z.array(z.string()),
  unstaged: z.array(z.string()),
  untracked: z.array(z.string()),
  conflicted: z.array(z.string()),
  truncated: z.boolean().optional(),
});

/** At most `keep` paths in each list. */
function firstPaths(status: GitStatus, keep: number): GitStatus & { truncated: true } {
  return {
    ...status,
    staged: status.staged.slice(0, keep),
    unstaged: status.unstaged.slice(0, keep),
    untracked: status.untracked.slice(0, keep),
    conflicted: status.conflicted.slice(0, keep),
    truncated: true,
  };
}

export interface GitStatus {
  branch: string | null;
  upstream: string | null;
  ahead: number;
  behind: number;
  staged: string[];
  unstaged: string[];
  untracked: string[];
  conflicted: string[];
}

/** Parses `git status --porcelain=v2 --branch` (NUL-separated with -z). */
export function parsePorcelainV2(text: string): GitStatus {
  const out: GitStatus = {
    branch: null,
    upstream: null,
    ahead: 0,
    behind: 0,
    staged: [],
    unstaged: [],
    untracked: [],
    conflicted: [],
  };
  const records = text.split('\0');
  for (let i = 0; i < records.length; i++) {
    const r = records[i] as string;
    if (r.startsWith('# branch.head ')) out.branch = r.slice(14) === '(detached)' ? null : r.slice(14);
    else if (r.startsWith('# branch.upstream ')) out.upstream = r.slice(18);
    else if (r.startsWith('# branch.ab ')) {
      const m = /\+(\d+) -(\d+)/.exec(r);
      out.ahead = Number(m?.[1] ?? 0);
      out.behind = Number(m?.[2] ?? 0);
    } else if (r.startsWith('1 ') || r.startsWith('2 ')) {
      const parts = r.split(' ');
      const xy = parts[1] ?? '..';
      const file = parts.slice(r.startsWith('1 ') ? 8 : 9).join(' ');
      if (xy[0] !== '.') out.staged.push(file);
      if (xy[1] !== '.') out.unstaged.push(file);
      if (r.startsWith('2 ')) i++; // the rename's original path follows as its own record
    } else if (r.startsWith('u ')) out.conflicted.push(r.split(' ').slice(10).join(' '));
    else if (r.startsWith('? ')) out.untracked.push(r.slice(2));
  }
  return out;
}

/**
 * seed 002 git_status: branch, ahead/behind, staged/unstaged/untracked from porcelain v2. Git runs
 * with gitSafetyEnv's environment (fsmonitor, hooks, pagers and every driver any config names
 * switched off), submodules not entered, and only for paths under the
 * directory asked about: a repository's config cannot make a status query run a program or report
 * files outside the roots.
 */
export function createGitStatusTool() {
  return defineTool({
    name: 'git_status',
    description:
      'Git status of the repository at path: branch, upstream, ahead/behind, staged, unstaged, untracked and conflicted files. JSON.',
    args,
    output: gitStatusSchema,
    tier: 'read_only',
    category: 'system',
    timeoutMs: 15_000,
    summary: (a) => `Git status of ${a.path}`,
    locations: (a) => [{ path: a.path, access: 'list' }],
    async execute(a, ctx) {
      const dir = ctx.sandbox.resolve(a.path);
      let isDirectory = false;
      try {
        isDirectory = statSync(dir.absolute).isDirectory();
      } catch {
        throw new ToolError(
          'NotFound',
          `"${dir.relative}" does not exist; give a directory inside the repository`,
        );
      }
      if (!isDirectory)
        throw new ToolError('BadArgs', `"${dir.relative}" is a file; give the directory it is in`);
      // The same neutralisation as every command's (src/tools/git/git-safety-env.ts): no program
      // any config names runs (the user's own neither: a tool that asks nobody runs nothing but git).
      const base = { ...scrubEnv(process.env), GIT_OPTIONAL_LOCKS: '0' };
      const safety = gitSafetyEnv(dir.absolute, base);
      if (!safety.gitVersion) throw new ToolError('ExecutionFailed', 'git is not installed here');
      if (safety.problem) throw new ToolError('ExecutionFailed', safety.problem);
      const env = withGitSafety(base, safety);
      const neutral = ['-c', 'core.untrackedCache=false'];
      const top = await runQuiet('git', [...neutral, 'rev-parse', '--show-toplevel'], {
        cwd: dir.absolute,
        env,
      });
      if (!top) throw new ToolError('ExecutionFailed', 'git is not installed here');
      if (top.code !== 0) throw new ToolError('BadArgs', `"${dir.relative}" is not inside a git repository`);
      // A working tree elsewhere (core.worktree, a .git file pointing away) is not what was asked for.
      let toplevel: string;
      try {
        toplevel = realpathSync(top.stdout.trim());
      } catch {
        throw new ToolError('ExecutionFailed', 'git named a working tree that does not exist');
      }
      if (dir.absolute !== toplevel && !dir.absolute.startsWith(toplevel + path.sep)) {
        throw new ToolError(
          'SandboxViolation',
          `the repository at "${dir.relative}" has its working tree elsewhere (core.worktree or a .git file); git_status only reports inside the roots`,
        );
      }
      const result = await runQuiet(
        'git',
        [
          ...neutral,
          '-c',
          'status.showUntrackedFiles=normal',
          'status',
          '--porcelain=v2',
          '--branch',
          '-z',
          '--ignore-submodules=all',
          '--',
          '.', // only what lies under the directory asked about (a root may be part of a larger repository)
        ],
        { cwd: dir.absolute, env },
      );
      if (!result) throw new ToolError('ExecutionFailed', 'git is not installed here');
      if (result.code !== 0)
        throw new ToolError('BadArgs', `"${dir.relative}" is not inside a git repository`);
      const status = parsePorcelainV2(result.stdout);
      const longest = Math.max(
        status.staged.length,
        status.unstaged.length,
        status.untracked.length,
        status.conflicted.length,
      );
      return {
        // Cut to the output limit by whole paths: the answer stays valid JSON.
        content: fitJson(status, ctx.outputLimit, longest, firstPaths).text,
        allowTruncation: false,
        display: `${status.branch ?? '(detached)'}: ${status.staged.length} staged, ${status.unstaged.length} unstaged, ${status.untracked.length} untracked`,
      };
    },
  });
}
