/**
 * Locating an edit target in a file (edit_file). Three stages, each tried only when the one before
 * found nothing: exact text, then lines equal ignoring trailing whitespace, then lines equal
 * ignoring indentation. Matches are character ranges in the file text.
 */
export interface Match {
  start: number;
  end: number;
  /** 1-based line of the match start. */
  line: number;
  stage: 'exact' | 'trailing-whitespace' | 'indentation';
  /** For an indentation match: what the file's first line has in front of the target's indent. */
  indentDelta?: { add: string; remove: string };
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

const leading = (s: string) => /^[ \t]*/.exec(s)?.[0] ?? '';

function lineMatches(
  text: string,
  target: string,
  starts: readonly number[],
  stage: 'trailing-whitespace' | 'indentation',
): Match[] {
  const fileLines = text.split('\n');
  // A target ending in a newline covers whole lines; that final empty piece is not a line to match.
  const wantLines = target.endsWith('\n') ? target.slice(0, -1).split('\n') : target.split('\n');
  const norm = stage === 'trailing-whitespace' ? (s: string) => s.trimEnd() : (s: string) => s.trim();
  const want = wantLines.map(norm);
  if (want.every((l) => l === '')) return [];
  const out: Match[] = [];
  for (let i = 0; i + want.length <= fileLines.length; i++) {
    let ok = true;
    for (let k = 0; k < want.length; k++) {
      if (norm(fileLines[i + k] as string) !== want[k]) {
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    const start = starts[i] as number;
    const lastLine = i + want.length - 1;
    let end = (starts[lastLine] as number) + (fileLines[lastLine] as string).length;
    if (target.endsWith('\n') && end < text.length) end += 1;
    const match: Match = { start, end, line: i + 1, stage };
    if (stage === 'indentation') {
      const fileIndent = leading(fileLines[i] as string);
      const targetIndent = leading(wantLines[0] as string);
      match.indentDelta = fileIndent.endsWith(targetIndent)
        ? { add: fileIndent.slice(0, fileIndent.length - targetIndent.length), remove: '' }
        : targetIndent.endsWith(fileIndent)
          ? { add: '', remove: targetIndent.slice(0, targetIndent.length - fileIndent.length) }
          : { add: '', remove: '' };
    }
    out.push(match);
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

/** Re-indents a replacement the way the file is indented where an indentation-stage match landed. */
export function reindent(replacement: string, delta: Match['indentDelta']): string {
  if (!delta || (delta.add === '' && delta.remove === '')) return replacement;
  return replacement
    .split('\n')
    .map((line) => {
      if (line.trim() === '') return line;
      const base = delta.remove && line.startsWith(delta.remove) ? line.slice(delta.remove.length) : line;
      return delta.add + base;
    })
    .join('\n');
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
