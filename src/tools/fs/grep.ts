import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolError } from '../../core/tool-error.js';
import { fitJson } from '../../output/fit-json.js';
import { openForRead, throughFd, throughFdForChild } from '../../sandbox/safe-fs.js';
import { GitignoreFilter } from './gitignore-filter.js';
import { checkPattern } from './glob.js';
import { listGitignores } from './glob-ripgrep.js';
import { grepWithJavaScript, queryRegex } from './grep-fallback.js';
import { grepWithRipgrep, ripgrepBinary } from './grep-ripgrep.js';
import type { GrepLine, GrepQuery } from './grep-types.js';
import { LINE_BREAK_IN_NAME } from './line-break-name.js';
import { PruneLog } from './prune-log.js';
import { reincludedBelow, rulesFromAbove, skippedOnlyIgnored } from './prune-rules.js';
import { sniffBinary } from './sniff-binary.js';
import { verifyGrepLines } from './verify-grep-lines.js';

const args = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe('Regular expression to search for (or literal text with fixed_strings).'),
  path: z
    .string()
    .min(1)
    .default('.')
    .describe('File or directory to search, relative to the workspace root.'),
  include: z.string().min(1).optional().describe('Only search files matching this glob, e.g. "*.ts".'),
  case_sensitive: z.boolean().default(false).describe('Match case exactly (default: ignore case).'),
  fixed_strings: z.boolean().default(false).describe('Treat the pattern as literal text, not a regex.'),
  context: z
    .number()
    .int()
    .min(0)
    .max(20)
    .default(0)
    .describe('Lines of context before and after each match.'),
  max_results: z.number().int().min(1).max(5000).default(200).describe('Most matching lines to return.'),
});

/** grep's answer as JSON (MCP outputSchema; the text content shows the same matches with context). */
export const grepAnswerSchema = z.object({
  matches: z.array(z.object({ path: z.string(), line: z.number(), text: z.string() })),
  truncated: z.boolean(),
});
type GrepAnswer = z.infer<typeof grepAnswerSchema>;
type GrepMatch = GrepAnswer['matches'][number];

export interface GrepSettings {
  timeoutMs?: number;
  /** Force the JavaScript search (tests, or a machine without the ripgrep binary). */
  forceJavaScript?: boolean;
}

/**
 * Searches file contents: ripgrep's --json stream when its binary is there (stopped at the cap),
 * a JavaScript search otherwise. Honours .gitignore, skips binary and hidden files, never follows
 * symlinks, leaves out denied paths. Output: `path:line: text` (context lines `path-line- text`).
 */
export function createGrepTool(settings: GrepSettings = {}) {
  return defineTool({
    name: 'grep',
    description:
      'Search file contents for a regular expression (case-insensitive unless case_sensitive). Prints "path:line: text" for each matching line, paths relative to the workspace root. Respects .gitignore; skips binary and hidden files.',
    args,
    output: grepAnswerSchema,
    tier: 'read_only',
    category: 'filesystem',
    ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
    summary: (a) =>
      `Search for ${JSON.stringify(a.pattern)}${a.path === '.' ? '' : ` in ${a.path}`}${a.include ? ` (${a.include})` : ''}`,
    locations: (a) => [{ path: a.path, access: 'read' }],
    async execute(a, ctx) {
      if (a.include) checkPattern(a.include);
      const query: GrepQuery = {
        pattern: a.pattern,
        caseSensitive: a.case_sensitive,
        fixedStrings: a.fixed_strings,
        context: a.context,
        include: a.include,
        maxResults: a.max_results,
      };
      const base = ctx.sandbox.resolve(a.path);
      // Open the real file or directory in the root (never a link swapped in after validation) and
      // search through that descriptor, so a racing rename cannot point the search elsewhere.
      let opened: Awaited<ReturnType<typeof openForRead>>;
      let isFile = true;
      try {
        opened = await openForRead(base, ctx.sandbox, 'file');
      } catch (error) {
        if (!(ToolError.isInstance(error) && error.type === 'BadArgs' && /directory/.test(error.message)))
          throw error;
        opened = await openForRead(base, ctx.sandbox, 'directory');
        isFile = false;
      }
      const out: string[] = [];
      const found: GrepMatch[] = []; // the matches alone, for structured content
      let matches = 0;
      let lastPath = '';
      let lastLine = -1;
      let more = false;
      /** Takes a line whose path is relative to the root; false = stop, the cap is reached. */
      const accept = (line: GrepLine): boolean => {
        const fromRoot = line.path;
        if (ctx.sandbox.deniedPattern(fromRoot) !== undefined) return true;
        if (line.kind === 'match' && matches >= a.max_results) {
          more = true;
          return false;
        }
        if (query.context > 0 && out.length > 0 && (fromRoot !== lastPath || line.line !== lastLine + 1))
          out.push('--');
        out.push(
          line.kind === 'match'
            ? `${fromRoot}:${line.line}: ${line.text}`
            : `${fromRoot}-${line.line}- ${line.text}`,
        );
        if (line.kind === 'match') {
          matches++;
          found.push({ path: fromRoot, line: line.line, text: line.text });
        }
        lastPath = fromRoot;
        lastLine = line.line;
        return true;
      };
      const binary = settings.forceJavaScript ? undefined : ripgrepBinary();
      try {
        const { handle, stat } = opened;
        if (isFile) {
          // One explicit file: binary files have no lines to show (as when walking a tree).
          const sample = Buffer.alloc(Math.min(8192, stat.size));
          await handle.read(sample, 0, sample.length, 0);
          if (!sniffBinary(sample, sample.length === stat.size)) {
            if (binary) {
              await grepWithRipgrep(
                binary,
                { cwd: base.root, target: '-', stdinFd: handle.fd },
                query,
                (line) => accept({ ...line, path: base.relative }),
                ctx.signal,
              );
            } else {
              await grepWithJavaScript(
                {
                  dir: undefined,
                  file: handle,
                  baseRelative: base.relative,
                  baseAbsolute: base.absolute,
                  root: base.root,
                },
                query,
                accept,
                ctx.signal,
              );
            }
          }
        } else if (binary) {
          // rg prints paths relative to its cwd: the verified directory. It only finds (file, line);
          // the text is read again through the verified descriptor (see verify-grep-lines.ts).
          const toRoot = (p: string) => (base.relative === '.' ? p : `${base.relative}/${p}`);
          const cwd = throughFdForChild(handle, base.absolute);
          // Ripgrep reads no ignore file: every path found is judged by the filter glob and
          // list_directory use. It skips what the rules at and above this folder ignore
          // (prune-rules.ts), and the answer stands only if the filter ignores all it skipped.
          const ignored = new GitignoreFilter(base.root, base.relative);
          const search = async (pruneRules: string | undefined, pruneLog?: PruneLog) => {
            const lines: GrepLine[] = [];
            let counted = 0;
            let cut = false;
            await grepWithRipgrep(
              binary,
              {
                cwd,
                target: '.',
                ...(pruneRules === undefined ? {} : { pruneRules }),
                ...(pruneLog === undefined ? {} : { pruneLog }),
              },
              query,
              (line) => {
                // A path a line, as the JavaScript search answers (line-break-name.ts).
                if (LINE_BREAK_IN_NAME.test(line.path) || ignored.ignores(toRoot(line.path))) return true;
                if (line.kind === 'match' && counted >= a.max_results) {
                  cut = true;
                  return false;
                }
                if (line.kind === 'match') counted++;
                lines.push({ ...line, path: toRoot(line.path) });
                return true;
              },
              ctx.signal,
            );
            return { lines, cut };
          };
          /**
           * The pruned search with a listing of the .gitignore files beside it (a second, pruned
           * walk): if one below holds a `!`, the search runs again unpruned. It stops with the
           * search when that fails.
           */
          const searchBesideListing = async (rules: string) => {
            const listing = new AbortController();
            const [pruned, gitignores] = await Promise.all([
              search(rules).catch((error: unknown) => {
                listing.abort();
                throw error;
              }),
              listGitignores(binary, cwd, rules, AbortSignal.any([ctx.signal, listing.signal])),
            ]);
            return gitignores.truncated || reincludedBelow(ignored, base.relative, gitignores.dirs)
              ? await search(undefined)
              : pruned;
          };
          const rules = rulesFromAbove(ignored, base.relative);
          let result: { lines: GrepLine[]; cut: boolean };
          if (rules === undefined) result = await search(undefined);
          else if (query.include !== undefined) {
            // An include glob's log would name every file it leaves out (~6x the search).
            result = await searchBesideListing(rules);
          } else {
            // One walk: ripgrep's debug log says what the rules made it skip, and the filter
            // judges each of those (a `!` below may keep one); else the search runs unpruned, or,
            // when the walk skipped too much to log (hidden or binary files by the thousand),
            // beside a listing.
            const log = new PruneLog();
            const pruned = await search(rules, log);
            result = skippedOnlyIgnored(ignored, base.relative, log)
              ? pruned
              : log.tooLong
                ? await searchBesideListing(rules)
                : await search(undefined);
          }
          const found = result.lines;
          if (result.cut) more = true;
          const prefixLength = base.relative === '.' ? 0 : base.relative.length + 1;
          const verified = await verifyGrepLines(found, {
            fdPath: throughFd(handle, base.absolute),
            absolute: base.absolute,
            relativeToBase: (fromRoot) => fromRoot.slice(prefixLength),
          });
          for (const line of verified) accept(line);
        } else {
          queryRegex(query); // report a bad pattern before walking anything
          await grepWithJavaScript(
            {
              dir: handle,
              file: undefined,
              baseRelative: base.relative,
              baseAbsolute: base.absolute,
              root: base.root,
            },
            query,
            accept,
            ctx.signal,
          );
        }
      } finally {
        await opened.handle.close();
      }
      // Trailing context lines after the last counted match are fine; drop a dangling separator.
      while (out.at(-1) === '--') out.pop();
      if (matches === 0) {
        return {
          content: `No matches for ${JSON.stringify(a.pattern)} in ${base.relative === '.' ? 'the workspace' : base.relative}.`,
          metadata: { matches: 0, structured: { matches: [], truncated: false } },
        };
      }
      // The same matches as JSON (MCP structuredContent), cut by whole matches to the output limit.
      const whole: GrepAnswer = { matches: found, truncated: more };
      const cut = (v: GrepAnswer, keep: number): GrepAnswer => ({
        matches: v.matches.slice(0, keep),
        truncated: true,
      });
      const { kept } = fitJson(whole, ctx.outputLimit, found.length, cut);
      const structured = kept === found.length ? whole : cut(whole, kept);
      return {
        content:
          out.join('\n') +
          (more
            ? `\n[more matches not shown: stopped at max_results = ${a.max_results}; narrow the search]`
            : ''),
        display: `${matches}${more ? '+' : ''} match(es) for ${a.pattern}`,
        metadata: { matches, truncated: more, engine: binary ? 'ripgrep' : 'javascript', structured },
      };
    },
  });
}
