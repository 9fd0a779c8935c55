/**
 * Finds the 1-based line where a key path (e.g. ["tools","sandbox","allowed_roots"] or
 * ["tools","policy","rules",2,"action"]) is written in TOML text. smol-toml gives positions only for
 * syntax errors, so validation errors are located here. Best effort: falls back to the table's line.
 */
function parseHeader(line: string): { path: string[]; array: boolean } | undefined {
  const match = /^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$/.exec(line);
  if (!match?.[1] || !match[2]) return undefined;
  return { path: splitDotted(match[2]), array: match[1] === '[[' };
}

function splitDotted(key: string): string[] {
  return key
    .split('.')
    .map((part) => part.trim().replace(/^["']|["']$/g, ''))
    .filter((part) => part.length > 0);
}

export function locateKey(text: string, keyPath: readonly (string | number)[]): number | undefined {
  const lines = text.split(/\r?\n/);
  const arrayCounts = new Map<string, number>();
  let table: (string | number)[] = [];
  let best: { line: number; depth: number } | undefined;

  const consider = (candidate: (string | number)[], lineNo: number) => {
    let depth = 0;
    while (
      depth < candidate.length &&
      depth < keyPath.length &&
      String(candidate[depth]) === String(keyPath[depth])
    )
      depth++;
    if (depth !== candidate.length) return;
    if (!best || depth > best.depth) best = { line: lineNo, depth };
  };

  lines.forEach((raw, index) => {
    const lineNo = index + 1;
    const header = parseHeader(raw);
    if (header) {
      if (header.array) {
        const key = header.path.join('.');
        const n = arrayCounts.get(key) ?? 0;
        arrayCounts.set(key, n + 1);
        table = [...header.path, n];
      } else {
        table = header.path;
      }
      consider(table, lineNo);
      return;
    }
    const assignment = /^\s*([A-Za-z0-9_."' -]+?)\s*=/.exec(raw);
    if (assignment?.[1]) consider([...table, ...splitDotted(assignment[1])], lineNo);
  });
  return best?.line;
}
