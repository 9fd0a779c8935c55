/** Events a running batch emits for a UI (seed 000 FR-OUT-01). Chunks are UI-only, never persisted. */
export type ToolEvent =
  | { type: 'started'; callId: string; toolName: string }
  | { type: 'stdout'; callId: string; chunk: string }
  | { type: 'stderr'; callId: string; chunk: string }
  | { type: 'completed'; callId: string; ok: boolean };
