export { approveBatch } from './approval/approve-batch.js';
export {
  ConfirmationCancelledError,
  ConfirmationChannel,
  ConfirmationTimeoutError,
} from './approval/confirmation-channel.js';
export { configJsonSchema, configSchema, type ToolgateConfig } from './config/config-schema.js';
export {
  ConfigError,
  defaultConfig,
  loadConfigFile,
  parseConfigText,
  validateConfig,
} from './config/load-config.js';
export type { ApprovalDecision, Approver, ConfirmationRequest } from './core/confirmation.js';
export { approveAll, denyAll, denyWith } from './core/confirmation.js';
export type { AssistantToolCall, ConversationMessage, ProviderKind } from './core/conversation.js';
export { defineTool, type ToolSpec } from './core/define-tool.js';
export type { Denial } from './core/denial.js';
export { DEFINITION_FORMATS, type DefinitionFormat, exportDefinitions } from './core/export-definitions.js';
export type { LoopEvent } from './core/loop-event.js';
export type { PlannedCall } from './core/planned-call.js';
export type { PolicyDecision } from './core/policy-decision.js';
export { ToolRegistry } from './core/registry.js';
export type { StreamEvent } from './core/stream-event.js';
export type { GovernanceMode, RiskLevel, Tier } from './core/tier.js';
export { parseToolCallBatch, type ToolCall, ToolCallShapeError } from './core/tool-call.js';
export type {
  AnyToolDefinition,
  ToolContext,
  ToolDefinition,
  ToolLocation,
  ToolOutput,
} from './core/tool-definition.js';
export { TOOL_ERROR_TYPES, ToolError, type ToolErrorType } from './core/tool-error.js';
export type { ToolEvent, ToolEventSink } from './core/tool-event.js';
export type { ToolResult } from './core/tool-result.js';
export { type OpenAiAgentsToolOptions, toOpenAiAgentsTools } from './integrations/openai-agents.js';
export { toVercelAiTools, type VercelAiTool } from './integrations/vercel-ai.js';
export type { BatchRecord, CallRecord, Journal } from './journal/journal.js';
export { JournalError } from './journal/journal.js';
export { SqliteJournal } from './journal/sqlite-journal.js';
export { loadConversation } from './loop/load-conversation.js';
export {
  advertisedTools,
  runTurn,
  type TurnOptions,
  type TurnOutcome,
  type TurnStatus,
} from './loop/run-turn.js';
export { turnToJson } from './loop/turn-json.js';
export { redactSecrets } from './output/redact-secrets.js';
export { sanitizeForTerminal } from './output/sanitize-terminal.js';
export { truncateOutput } from './output/truncate-output.js';
export { PolicyEngine } from './policy/policy-engine.js';
export { adapterFor } from './providers/adapters.js';
export type { AdvertisedTool, Connection, ProviderAdapter } from './providers/provider.js';
export { ProviderError } from './providers/provider.js';
export { ProviderSetupError, resolveProvider } from './providers/resolve-provider.js';
export { streamTurn } from './providers/stream-turn.js';
export { EventChannel } from './run/event-channel.js';
export type { BatchObserver } from './run/execute-batch.js';
export { type ResolvedPath, Sandbox } from './sandbox/sandbox.js';
export { createToolgate, Toolgate, type ToolgateOptions } from './toolgate.js';
