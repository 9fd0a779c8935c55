/** A patch, whichever format it came in, as the operations to stage (apply_patch). */
export interface Chunk {
  /** `@@ <ctx>` lines, outermost first: each narrows where the chunk may match. */
  contexts: string[];
  oldLines: string[];
  newLines: string[];
  /** `*** End of File`: the old lines must be the file's last lines. */
  eof: boolean;
  /** 1-based old start line from a unified diff header: breaks ties between equal matches. */
  oldStart?: number;
  /** Line of the chunk in the patch text, for messages. */
  patchLine: number;
}

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
