/**
 * toolgate's own state named in a command line (issue #30 §10): `.toolgate` as a path component,
 * `toolgate.toml`, the trust store, the MCP token file. Such a command is refused, not asked: the person answering
 * for a command may not be the person whose journal, memory or config it is (another MCP user).
 * Found in any word, also where no path check sees it: `file:.toolgate/memory.db?mode=ro`,
 * `ATTACH '.toolgate/memory.db'` in an SQL argument, `> .toolgate/journal.db`, a here-document.
 */
const NAMES_OWN_STATE =
  /(?:^|[^\w.-])(?:\.toolgate|toolgate\.toml)(?![\w.-])|toolgate\/(?:\.?trusted\.json|mcp-token|seal-key)/;

export function namesOwnState(text: string): boolean {
  return NAMES_OWN_STATE.test(text);
}

/** Why a command naming toolgate's own state is refused, the way out first. */
export function ownStateRefusal(what: string): string {
  return `use the memory tools (memory_search, memory_save …) for memory and toolgate's own commands (toolgate journal, toolgate approvals) for the journal: ${what} names toolgate's own configuration or state (journal, memory, trust store, MCP token), which no command is given, whoever approves`;
}
