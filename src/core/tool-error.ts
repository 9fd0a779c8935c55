/** The exact error type strings of the ToolResult contract (DESIGN §2.1). */
export const TOOL_ERROR_TYPES = [
  'BadArgs',
  'UnknownTool',
  'DuplicateToolCallId',
  'LimitExceeded',
  'Denied',
  'SandboxViolation',
  'NotFound',
  'AlreadyExists',
  'StaleFile',
  'PatchFailed',
  'EditTargetNotFound',
  'EditTargetAmbiguous',
  'Timeout',
  'Cancelled',
  'ExecutionFailed',
  'Internal',
] as const;

export type ToolErrorType = (typeof TOOL_ERROR_TYPES)[number];

const MARK = Symbol.for('toolgate.ToolError');

/**
 * A typed error a tool (or a pipeline stage) throws to produce an error result.
 * Anything else thrown by a tool becomes `ExecutionFailed` with a sanitized message.
 */
export class ToolError extends Error {
  readonly [MARK] = true;
  readonly type: ToolErrorType;
  readonly metadata: Record<string, unknown> | undefined;

  constructor(type: ToolErrorType, message: string, metadata?: Record<string, unknown>) {
    super(message);
    this.name = 'ToolError';
    this.type = type;
    this.metadata = metadata;
  }

  /** Works across copies of the module (instanceof does not). */
  static isInstance(value: unknown): value is ToolError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARK] === true;
  }
}

export function isToolErrorType(value: unknown): value is ToolErrorType {
  return typeof value === 'string' && (TOOL_ERROR_TYPES as readonly string[]).includes(value);
}
