/**
 * Events a running batch emits for a UI (seed 000 FR-OUT-01). Chunks are UI-only, never persisted.
 * `ascii`: the chunk is printable ASCII, tab and newline only (a writer may skip its own escaping work).
 */
export type ToolEvent =
  | { type: 'started'; callId: string; toolName: string }
  | { type: 'stdout'; callId: string; chunk: string; ascii?: true }
  | { type: 'stderr'; callId: string; chunk: string; ascii?: true }
  | { type: 'completed'; callId: string; ok: boolean };

/**
 * Receives a batch's events. A promise (any thenable) returned for an output event means "slow
 * down": the tool produces no more output until it settles (backpressure), so a slow UI costs time,
 * never memory. Any other return value is ignored, so `(e) => events.push(e)` stays a valid sink.
 */
export type ToolEventSink = (event: ToolEvent) => unknown;
