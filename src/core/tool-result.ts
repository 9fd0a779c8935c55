import type { ToolErrorType } from './tool-error.js';

/** The stable result contract (DESIGN §2.1): exactly one per ToolCall, in call order. */
export interface ToolResult {
  id: string;
  name: string;
  ok: boolean;
  /** What the model sees. */
  content: string;
  /** What a person sees (short, terminal-safe). */
  display?: string;
  error: null | { type: ToolErrorType; message: string };
  latencyMs: number;
  metadata?: Record<string, unknown>;
}
