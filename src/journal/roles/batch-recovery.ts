import type { ToolResult } from '../../core/tool-result.js';

/**
 * Settling a batch a crash left incomplete (`toolgate recover`, resume on start): nothing is run
 * again.
 */
export interface BatchRecovery {
  /** Recovery: a `running` call becomes `unknown` ("outcome unknown: interrupted"), unstarted ones `not_run` ("not executed: …it never ran"). */
  resumeBatch(batchId: string, worker?: string): ToolResult[];
  /** Recovery: calls stay visible, every result is marked failed (the original is kept for audit). */
  discardBatch(batchId: string, worker?: string): ToolResult[];
}
