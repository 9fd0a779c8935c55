import { parsePatch } from '../tools/patch/parse-patch.js';
import type { PatchOp } from '../tools/patch/patch-ops.js';

/**
 * One line that says what a journaled call does (issue #31 §3: "which file?" is an auditor's first
 * question), from its name and arguments alone: the console has the journal, not the tools. The
 * arguments themselves are shown whole beside it, on demand.
 */

/** Past this, the line is cut and says so: the whole arguments are one click away. */
const MAX_SUMMARY = 160;

const lineCount = (text: string) =>
  text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * What an apply_patch does to which files, read by the tool's own parser (hostile review of issue
 * #31: a second reading by regular expressions missed moves, deletions and indented headers, and
 * took a content line for a file name).
 */
function patchSummary(patch: string): string {
  let ops: PatchOp[];
  try {
    ops = parsePatch(patch);
  } catch {
    return '(a patch that does not parse: see the arguments)';
  }
  if (ops.length === 0) return '(no file named)';
  return ops
    .map((op) => {
      if (op.kind === 'add') return `add ${op.path}`;
      if (op.kind === 'delete') return `delete ${op.path}`;
      return op.moveTo ? `update ${op.path} → ${op.moveTo}` : `update ${op.path}`;
    })
    .join(', ');
}

/** What the call's arguments say it does, after its name. */
function detail(name: string, args: Record<string, unknown>): string {
  const p = str(args.path);
  switch (name) {
    case 'write_file': {
      const content = str(args.content) ?? '';
      return `${p ?? ''} (${plural(lineCount(content), 'line')}${args.overwrite === true ? ', overwrite' : ''})`;
    }
    case 'edit_file':
      return `${p ?? ''} (${plural(Array.isArray(args.edits) ? args.edits.length : 0, 'edit')})`;
    case 'apply_patch':
      return patchSummary(str(args.patch) ?? '');
    case 'read_many_files':
      return Array.isArray(args.paths) ? args.paths.map(String).join(', ') : '';
    case 'vault_copyto':
      return `${str(args.source) ?? ''} → ${str(args.destination) ?? ''}`;
    default:
      break;
  }
  // Any other tool (config-defined and MCP ones too): its most telling argument.
  for (const key of ['command', 'pattern', 'path', 'url', 'query', 'action', 'note_id', 'key']) {
    const value = args[key];
    if (typeof value === 'string' || typeof value === 'number') {
      const more = key === 'pattern' && p ? ` in ${p}` : '';
      return `${String(value)}${more}`;
    }
  }
  return '';
}

/** "write_file src/a.ts (120 lines)", at most MAX_SUMMARY characters, saying when it was cut. */
export function callSummary(name: string, args: unknown): string {
  let parsed = args;
  if (typeof args === 'string') {
    try {
      parsed = JSON.parse(args);
    } catch {
      return `${name} (arguments are not valid JSON)`;
    }
  }
  const what =
    parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? detail(name, parsed as Record<string, unknown>)
      : '';
  const line = `${name} ${what.replace(/\s*\n\s*/g, ' ⏎ ')}`.trim();
  if (line.length <= MAX_SUMMARY) return line;
  // Cut in the middle: a path's end (where `/../../.github/…` would hide) stays in view.
  const tail = Math.floor(MAX_SUMMARY / 3);
  return `${line.slice(0, MAX_SUMMARY - tail)} … ${line.slice(-tail)} (cut: see the arguments)`;
}

/** The arguments as journaled, whole: JSON laid out, or the raw text a model sent that is not JSON. */
export function argumentsText(args: unknown): string {
  if (typeof args === 'string') {
    try {
      return JSON.stringify(JSON.parse(args), null, 2);
    } catch {
      return args;
    }
  }
  return JSON.stringify(args, null, 2) ?? '';
}
