import { commonShift, firstIndentDifference, type IndentShift } from './indent-shift.js';

/**
 * Locating an edit target in a file (edit_file). Three stages, each tried only when the one before
 * found nothing: exact text, then lines equal ignoring trailing whitespace, then the same lines
 * moved as one block by a common indentation (issue #30 §1: never lines re-indented one by one,
 * which changed where a line sat). Matches are character ranges in the file text.
 */
export interface Match {
  start: number;
  end: number;
  /** 1-based line of the match start. */
  line: number;
  stage: 'exact' | 'trailing-whitespace' | 'indentation';
  /** For an indentation match: how the file's lines are moved from the target's; the replacement moves the same. */
  shift?: IndentShift;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function exactMatches(text: string, target: string, starts: readonly number[]): Match[] {
  const out: Match[] = [];
  for (let i = text.indexOf(target); i !== -1; i = text.indexOf(target, i + Math.max(target.length, 1))) {
    out.push({ start: i, end: i + target.length, line: lineAt(starts, i), stage: 'exact' });
  }
  return out;
}

/** The target as lines: a target ending in a newline covers whole lines, that last empty piece is not one. */
const targetLines = (target: string) =>
  target.endsWith('\n') ? target.slice(0, -1).split('\n') : target.split('\n');

/** Line-wise matches where `fits` accepts the file's lines for the target's. */
function lineMatches(
  text: string,
  target: string,
  starts: readonly number[],
  stage: 'trailing-whitespace' | 'indentation',
): Match[] {
  const fileLines = text.split('\n');
  const want = targetLines(target);
  if (want.every((l) => l.trim() === '')) return [];
  // The empty piece after a final newline is no line: a blank target line must match a real one.
  const real = text.endsWith('\n') ? fileLines.length - 1 : fileLines.length;
  const out: Match[] = [];
  for (let i = 0; i + want.length <= real; i++) {
    let shift: IndentShift | undefined;
    if (stage === 'trailing-whitespace') {
      let ok = true;
      for (let k = 0; k < want.length && ok; k++) {
        ok = (fileLines[i + k] as string).trimEnd() === (want[k] as string).trimEnd();
      }
      if (!ok) continue;
    } else {
      shift = commonShift(fileLines.slice(i, i + want.length), want);
      if (!shift) continue;
    }
    const start = starts[i] as number;
    const lastLine = i + want.length - 1;
    let end = (starts[lastLine] as number) + (fileLines[lastLine] as string).length;
    if (target.endsWith('\n') && end < text.length) end += 1;
    out.push({ start, end, line: i + 1, stage, ...(shift ? { shift } : {}) });
  }
  return out;
}

/** All matches of the first stage that finds any. */
export function findTarget(text: string, target: string): Match[] {
  const starts = lineStarts(text);
  const exact = exactMatches(text, target, starts);
  if (exact.length > 0) return exact;
  const trailing = lineMatches(text, target, starts, 'trailing-whitespace');
  if (trailing.length > 0) return trailing;
  return lineMatches(text, target, starts, 'indentation');
}

/**
 * For a target no stage matched: the first place whose lines equal it ignoring all indentation,
 * and the first line whose indentation differs relative to the others, so the model can copy it.
 */
export function indentationNearMiss(
  text: string,
  target: string,
): { line: number; file: string; target: string } | undefined {
  const fileLines = text.split('\n');
  const want = targetLines(target);
  if (want.every((l) => l.trim() === '')) return undefined;
  for (let i = 0; i + want.length <= fileLines.length; i++) {
    const diff = firstIndentDifference(fileLines.slice(i, i + want.length), want);
    if (diff) return { line: i + diff.index + 1, file: diff.file, target: diff.shown };
  }
  return undefined;
}

/** Dice coefficient on character bigrams: a cheap "how alike are these lines". */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const grams = new Map<string, number>();
  for (let i = 0; i < a.length - 1; i++) {
    const g = a.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  let both = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const g = b.slice(i, i + 2);
    const n = grams.get(g) ?? 0;
    if (n > 0) {
      both++;
      grams.set(g, n - 1);
    }
  }
  return (2 * both) / (a.length - 1 + (b.length - 1));
}

/**
 * The region of the file most like the target, as numbered lines, so a model can fix its target.
 * Bounded work: at most 20 target lines are compared at each of at most 20 000 positions.
 */
export function closestRegion(
  text: string,
  target: string,
  context = 2,
): { line: number; excerpt: string } | undefined {
  const fileLines = text.split('\n');
  const want = target
    .split('\n')
    .map((l) => l.trim())
    .slice(0, 20);
  if (fileLines.length === 0 || want.every((l) => l === '')) return undefined;
  let best = { index: -1, score: 0 };
  const limit = Math.min(fileLines.length, 20_000);
  for (let i = 0; i < limit; i++) {
    let score = 0;
    for (let k = 0; k < want.length && i + k < fileLines.length; k++) {
      score += similarity((fileLines[i + k] as string).trim(), want[k] as string);
    }
    if (score > best.score) best = { index: i, score };
  }
  if (best.index < 0 || best.score / want.length < 0.3) return undefined;
  const from = Math.max(0, best.index - context);
  const to = Math.min(fileLines.length, best.index + want.length + context);
  const width = String(to).length;
  const excerpt = fileLines
    .slice(from, to)
    .map((l, i) => `${String(from + i + 1).padStart(width)} | ${l}`)
    .join('\n');
  return { line: best.index + 1, excerpt };
}
