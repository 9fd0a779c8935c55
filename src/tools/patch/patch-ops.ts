/** A patch, whichever format it came in, as the operations to stage (apply_patch). */

/**
 * One body line of a chunk, as the patch shows it. Kept apart (not merged into old and new sides)
 * because a context line keeps the FILE's text when applied, never the patch's spelling of it
 * (issue #30 §1: a context line matched loosely was rewritten by the patch's text).
 */
export interface ChunkLine {
  kind: 'context' | 'remove' | 'add';
  text: string;
}

export interface Chunk {
  /** `@@ <ctx>` lines, outermost first: each narrows where the chunk may match. */
  contexts: string[];
  lines: ChunkLine[];
  /** `*** End of File`: the old lines must be the file's last lines. */
  eof: boolean;
  /** 1-based old start line from a unified diff header: breaks ties between equal matches. */
  oldStart?: number;
  /** Line of the chunk in the patch text, for messages. */
  patchLine: number;
}

/** The lines the chunk expects in the file: context and removed lines, in order. */
export const oldSide = (c: Pick<Chunk, 'lines'>): string[] =>
  c.lines.filter((l) => l.kind !== 'add').map((l) => l.text);

/** The lines the patch shows after the change: context and added lines, in order. */
export const newSide = (c: Pick<Chunk, 'lines'>): string[] =>
  c.lines.filter((l) => l.kind !== 'remove').map((l) => l.text);

export type PatchOp =
  | { kind: 'add'; path: string; content: string; patchLine: number }
  | { kind: 'delete'; path: string; patchLine: number }
  | {
      kind: 'update';
      path: string;
      moveTo?: string;
      chunks: Chunk[];
      /** Unified diff `\ No newline at end of file` on the new side. */
      noFinalNewline?: boolean;
      patchLine: number;
    };

/** A patch that cannot be parsed: says where and what is expected. */
export class PatchParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatchParseError';
  }
}
