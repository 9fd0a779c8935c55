import { createHash } from 'node:crypto';
import path from 'node:path';
import type { CommandFacts } from '../core/command-facts.js';
import type { ConfirmationRequest } from '../core/confirmation.js';
import {
  type Grant,
  type GrantCoverage,
  type GrantOffer,
  grantPrefix,
  type RememberChoice,
  type RememberScope,
} from '../core/grant.js';
import { showExact } from '../output/show-exact.js';
import { canonicalOrNot, type ResolvedPath } from '../sandbox/sandbox.js';

/**
 * What "always" covers for one call (issue #30 §5): exactly what the person was shown, never every
 * call of the tool. The same function computes what a waiting call offers and what a later call
 * needs, so a grant allows a call only when the call's own coverage lies inside it.
 */

/** The facts about a call that decide its coverage (from planning: PlannedCall, PolicyInput). */
export interface CallFacts {
  tool: string;
  /** The arguments as the model sent them (what the policy judged). */
  args: unknown;
  /** Its locations resolved by the sandbox, in order. */
  paths: readonly ResolvedPath[];
  /** It removes a file or directory. */
  deletes?: boolean;
  commandFacts?: CommandFacts;
  /** The summary the person was shown (kept with an arguments grant for `toolgate grants list`). */
  summary?: string;
}

/** Tools whose effect is "this content at this path": a grant names the files (or a directory). */
const FILE_CHANGE_TOOLS = new Set(['write_file', 'edit_file', 'apply_patch']);

/** What "always" would store for this call, or why it is not offered. */
export function grantOffer(call: CallFacts): GrantOffer {
  if (call.commandFacts) {
    const prefixes: string[][] = [];
    for (const c of call.commandFacts.commands) {
      const prefix = grantPrefix(c.argv);
      if (prefix && !prefixes.some((p) => p.join('\0') === prefix.join('\0'))) prefixes.push(prefix);
    }
    if (prefixes.length === 0)
      return { refused: 'no part of this command line has words known before it runs' };
    return { covers: prefixes.map((prefix) => ({ kind: 'command', prefix })) };
  }
  if (call.deletes) return { refused: 'deletions always ask' };
  if (FILE_CHANGE_TOOLS.has(call.tool)) {
    if (call.paths.length === 0) return { refused: 'the call names no file' };
    const paths = unique(call.paths.map((p) => p.absolute));
    const shown = unique(call.paths.map((p) => p.relative));
    return { covers: [{ kind: 'paths', paths, shown }] };
  }
  if (call.tool === 'web_fetch') {
    const origin = originOf(call.args);
    return origin ? { covers: [{ kind: 'origin', origin }] } : { refused: 'the URL cannot be read' };
  }
  const sha256 = argumentsHash(call.args);
  if (sha256 === undefined) return { refused: 'its arguments cannot be compared' };
  return { covers: [{ kind: 'arguments', sha256, shown: call.summary ?? '' }] };
}

/**
 * The offer with the directory the person picked in place of the exact files; undefined when that
 * cannot be honoured (not a file change, a directory outside the files' root or not containing
 * every file): then nothing is remembered.
 */
export function offerForChoice(
  offer: GrantOffer,
  choice: RememberChoice,
  paths: readonly ResolvedPath[],
): GrantCoverage[] | undefined {
  if (!('covers' in offer)) return undefined;
  const directory = typeof choice === 'object' ? choice.directory : undefined;
  if (directory === undefined) return offer.covers;
  const [only] = offer.covers;
  if (offer.covers.length !== 1 || only?.kind !== 'paths') return undefined;
  const root = paths[0]?.root;
  if (root === undefined || paths.some((p) => p.root !== root)) return undefined;
  if (typeof directory !== 'string' || directory.includes('\0') || path.isAbsolute(directory))
    return undefined;
  const resolved = canonicalOrNot(path.resolve(root, directory));
  const inRoot = path.relative(root, resolved);
  if (inRoot.startsWith('..') || path.isAbsolute(inRoot)) return undefined;
  if (!only.paths.every((p) => inside(p, resolved))) return undefined;
  return [
    { kind: 'directory', directory: resolved, shown: inRoot === '' ? '.' : inRoot.split(path.sep).join('/') },
  ];
}

/** Whether the grants in force allow this call (non-command tools; commands go by prefix). */
export function grantsCover(grants: readonly Grant[], call: CallFacts): boolean {
  const mine = grants.filter((g) => g.tool === call.tool);
  if (mine.length === 0 || call.commandFacts) return false;
  const offer = grantOffer(call);
  if (!('covers' in offer)) return false;
  return offer.covers.every((needed) => {
    switch (needed.kind) {
      case 'paths':
        // Every file the call changes lies in some grant of this tool.
        return needed.paths.every((file) =>
          mine.some(
            ({ covers: c }) =>
              (c.kind === 'paths' && c.paths.includes(file)) ||
              (c.kind === 'directory' && inside(file, c.directory)),
          ),
        );
      case 'origin':
        return mine.some(({ covers: c }) => c.kind === 'origin' && c.origin === needed.origin);
      case 'arguments':
        return mine.some(({ covers: c }) => c.kind === 'arguments' && c.sha256 === needed.sha256);
      default:
        return false;
    }
  });
}

/** The prefixes granted to a command tool (judged per sub-command by the shell policy). */
export function grantedPrefixes(grants: readonly Grant[], tool: string): string[] {
  const out: string[] = [];
  for (const g of grants)
    if (g.tool === tool && g.covers.kind === 'command') out.push(g.covers.prefix.join(' '));
  return out;
}

/** Where grants are kept, which decides who a project grant reaches. */
export type GrantStoreKind = 'journal' | 'memory';

/**
 * The exact words every surface shows next to "always" (terminal, MCP elicitation, console,
 * `toolgate approvals`): what it covers and for whom. A request without an offer (written before
 * offers existed) or whose offer is refused says "always" is not available, and why.
 * Surfaces still pass the text through their usual exact-showing step.
 */
export function describeGrant(
  request: ConfirmationRequest & { always?: GrantOffer },
  choice: RememberChoice,
  options: { store?: GrantStoreKind; paths?: readonly ResolvedPath[] } = {},
): string {
  const offer = request.always;
  if (!offer) return `"always" is not available for this ${request.toolName} call: approve it once`;
  if (!('covers' in offer)) return `"always" is not available for ${request.toolName}: ${offer.refused}`;
  const scope: RememberScope = typeof choice === 'object' ? choice.scope : choice;
  let covers: readonly GrantCoverage[] = offer.covers;
  if (typeof choice === 'object' && choice.directory !== undefined) {
    const narrowed = options.paths ? offerForChoice(offer, choice, options.paths) : undefined;
    covers = narrowed ?? [
      { kind: 'directory', directory: choice.directory, shown: choice.directory.replace(/\/+$/, '') },
    ];
  }
  return `always allow ${request.toolName} ${coverageText(covers)} ${whoText(scope, options.store ?? 'journal')}`;
}

/**
 * What a stored grant covers and for whom, for `toolgate grants list`, in words made from what it
 * really covers (its files, directory, origin, prefix or arguments' hash), never from the text the
 * row keeps for display: a row written by someone else could say `./` and cover `/`. Paths under
 * `root` are shown relative to it, any other absolute. A grant not made by this user here
 * (`notMadeHere`, see grant-rows.ts) allows nothing and says so.
 */
export function describeStoredGrant(grant: Grant & { notMadeHere?: GrantCoverage }, root?: string): string {
  const who = grant.scope === 'session' ? `session ${quoted(grant.session ?? '?')}` : 'every session';
  if (grant.notMadeHere && grant.notMadeHere.kind !== 'tool_wide_legacy')
    return `${grant.tool} ${realCoverageText(grant.notMadeHere, root)}, ${who}: not made by this user here: ignored (revoke it)`;
  if (grant.covers.kind === 'tool_wide_legacy')
    return `${grant.tool}: an old grant for every call of the tool, no longer honoured (revoke it)`;
  return `${grant.tool} ${realCoverageText(grant.covers, root)}, ${who}`;
}

function realCoverageText(c: GrantCoverage, root: string | undefined): string {
  const where = (p: string) => {
    if (root && inside(p, root)) return path.relative(root, p) || '.';
    return p;
  };
  switch (c.kind) {
    case 'command':
      return `commands starting ${quoted(c.prefix.join(' '))}`;
    case 'paths':
      return `to ${c.paths.map((p) => quoted(where(p))).join(', ')}`;
    case 'directory': {
      const dir = where(c.directory);
      return `to any file under ${quoted(dir.endsWith('/') ? dir : `${dir}/`)}`;
    }
    case 'origin':
      return `fetches from ${quoted(c.origin)}`;
    case 'arguments':
      return `with exactly the arguments approved then (SHA-256 ${c.sha256.slice(0, 16)}…)`;
    default:
      return 'nothing (an old tool-wide grant)';
  }
}

function coverageText(covers: readonly GrantCoverage[]): string {
  const parts: string[] = [];
  for (const c of covers) {
    switch (c.kind) {
      case 'command':
        parts.push(`commands starting ${quoted(c.prefix.join(' '))}`);
        break;
      case 'paths':
        parts.push(`to ${c.shown.map(quoted).join(', ')}`);
        break;
      case 'directory':
        parts.push(`to any file under ${quoted(`${c.shown === '.' ? '.' : c.shown}/`)}`);
        break;
      case 'origin':
        parts.push(`fetches from ${c.origin}`);
        break;
      case 'arguments':
        parts.push(`with exactly these arguments${c.shown ? ` (${c.shown})` : ''}`);
        break;
      default:
        parts.push('nothing (an old tool-wide grant)');
    }
  }
  return parts.join(' and ');
}

function whoText(scope: RememberScope, store: GrantStoreKind): string {
  if (scope === 'session') return 'in this session';
  return store === 'journal'
    ? 'for every session on this journal (every agent using it)'
    : 'for every session of this toolgate until it exits';
}

/** Plain words as they are; anything else quoted, every invisible or steering character made visible. */
function quoted(text: string): string {
  return /^[\w./@+,:=%~-]+$/.test(text) ? text : `"${showExact(text, { oneLine: true })}"`;
}

function inside(file: string, directory: string): boolean {
  if (file === directory) return true;
  const base = directory.endsWith(path.sep) ? directory : `${directory}${path.sep}`;
  return file.startsWith(base);
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

/** scheme://host[:port] with the host in its ASCII (punycode) form, as the request goes; http(s) only. */
function originOf(args: unknown): string | undefined {
  const url = typeof args === 'object' && args !== null ? (args as { url?: unknown }).url : undefined;
  if (typeof url !== 'string') return undefined;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
    return parsed.origin; // WHATWG: punycode host, default port left out, no user or password
  } catch {
    return undefined;
  }
}

/** SHA-256 of the arguments as canonical JSON (keys sorted at every level). */
function argumentsHash(args: unknown): string | undefined {
  try {
    return createHash('sha256').update(canonicalJson(args)).digest('hex');
  } catch {
    return undefined;
  }
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  const text = JSON.stringify(value);
  if (text === undefined) throw new Error('not JSON');
  return text;
}
