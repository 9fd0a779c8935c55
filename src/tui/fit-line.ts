/** One part of a one-row line: its text, a shorter form, and how much it matters. */
export interface Segment {
  text: string;
  short?: string;
  /** Higher is kept longer. */
  priority: number;
  /** May be cut (ending in …) to fill what room is left, rather than left out. */
  cut?: boolean;
}

const SEPARATOR = ' · ';
/** A cut segment shorter than this says too little to be worth its room. */
const MIN_CUT = 8;

// East Asian wide and fullwidth ranges, and the emoji blocks: two columns each.
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
const ZERO = /^(?:\p{Mn}|\p{Me}|\p{Cf})$/u;

/** Terminal columns a string takes (wide characters count two, combining marks none). */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += ZERO.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1;
  return width;
}

/** The longest start of `text` that fits `width` columns with an ellipsis. */
function cutTo(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const ch of text) {
    const w = displayWidth(ch);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return `${out}…`;
}

/**
 * Joins segments with " · " into at most `width` columns, so the line never wraps. Room goes by
 * priority: first every segment that fits in its short form (highest priority first), then the
 * long forms where they still fit, then a cuttable segment left out gets what room remains. The
 * most needed segment is always shown (cut, if the width leaves no room for even its short form).
 * Segments keep their given order on the line.
 */
export function fitLine(segments: readonly Segment[], width: number): string {
  const shown = new Map<Segment, string>();
  const used = () => {
    let total = 0;
    for (const text of shown.values()) total += displayWidth(text);
    return total + SEPARATOR.length * Math.max(0, shown.size - 1);
  };
  const room = () => width - used() - (shown.size > 0 ? SEPARATOR.length : 0);
  const byPriority = [...segments].sort((a, b) => b.priority - a.priority);
  const top = byPriority[0];
  if (!top) return '';
  // The most needed segment is always there, cut if even its short form is too wide.
  if (displayWidth(top.short ?? top.text) > width) return cutTo(top.short ?? top.text, width);
  for (const s of byPriority) {
    const text = s.short ?? s.text;
    if (displayWidth(text) <= room()) shown.set(s, text);
  }
  for (const s of byPriority) {
    const current = shown.get(s);
    if (current === undefined || current === s.text) continue;
    if (displayWidth(s.text) - displayWidth(current) <= width - used()) shown.set(s, s.text);
  }
  for (const s of byPriority) {
    if (shown.has(s) || !s.cut || room() < MIN_CUT) continue;
    shown.set(s, cutTo(s.text, room()));
  }
  return segments
    .filter((s) => shown.has(s))
    .map((s) => shown.get(s))
    .join(SEPARATOR);
}
