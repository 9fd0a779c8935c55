/** One line grep reports: a match, or a context line around one. */
export interface GrepLine {
  /** Relative to the sandbox root. */
  path: string;
  line: number;
  text: string;
  kind: 'match' | 'context';
  /** From ripgrep: the line's byte offset and exact text, to check it against our own read. */
  offset?: number;
  raw?: string;
}

export interface GrepQuery {
  pattern: string;
  caseSensitive: boolean;
  fixedStrings: boolean;
  context: number;
  include: string | undefined;
  maxResults: number;
}

/** Longest line text shown; minified files would otherwise flood the output. */
export const MAX_LINE_CHARS = 500;

export function clipLine(text: string): string {
  const clean = text.replace(/\r?\n$/, '');
  return clean.length > MAX_LINE_CHARS
    ? `${clean.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} chars]`
    : clean;
}
