/**
 * What a project's own `toolgate.toml`, found by toolgate in a root or the working directory and
 * not (yet) trusted by the person, may set (issue #29, finding 6). A cloned repository must not
 * write its own policy: only what makes the built-in defaults stricter applies, and every key not
 * in this table is ignored (fail closed), so a key added to the schema later is ignored until
 * someone decides here that it only tightens. Read by `tighten-only.ts`.
 *
 * Keys are dotted paths into the file; `*` stands for one name (a tool, a mode). The most specific
 * pattern wins. A pattern naming a whole table (`providers`) decides everything under it.
 */
export type TighteningRule =
  /** Any value applies: it only adds denials, asks or restrictions. */
  | { kind: 'tightens' }
  /** A list joined with the built-in default's, so a default entry cannot be removed. */
  | { kind: 'adds-to-default' }
  /** A number applies when it is at most the built-in default (a lower limit or timeout). */
  | { kind: 'lower-only' }
  /** Applies only when the value is one of these (the stricter settings). */
  | { kind: 'only'; values: readonly (string | boolean)[] }
  /** `[[tools.policy.rules]]`: deny and ask rules apply, allow rules do not. */
  | { kind: 'deny-and-ask-rules' }
  /** `allowed_roots`: applies only when every root is inside the config file's own directory. */
  | { kind: 'roots-inside-project' }
  /** Never applies until trusted; `why` says what it would open. */
  | { kind: 'ignored'; why: string };

const tightens = { kind: 'tightens' } as const;
const lowerOnly = { kind: 'lower-only' } as const;
const addsToDefault = { kind: 'adds-to-default' } as const;
const only = (...values: (string | boolean)[]) => ({ kind: 'only', values }) as const;
const ignored = (why: string) => ({ kind: 'ignored', why }) as const;

export const TIGHTENING_RULES: Readonly<Record<string, TighteningRule>> = {
  'tools.mode': only('disabled', 'parse_only', 'enabled'),
  'tools.allow_parallel': only(false),
  'tools.max_tool_calls_per_batch': lowerOnly,
  'tools.max_tool_iterations_per_user_turn': lowerOnly,
  'tools.max_tool_args_bytes': lowerOnly,
  'tools.max_repeated_failures': lowerOnly,

  'tools.sandbox.allowed_roots': { kind: 'roots-inside-project' },
  'tools.sandbox.denied_patterns': addsToDefault,
  'tools.sandbox.allow_absolute': only(false),
  'tools.sandbox.include_default_denies': only(true),

  'tools.timeouts.default_seconds': lowerOnly,
  'tools.timeouts.file_operations_seconds': lowerOnly,
  'tools.timeouts.shell_commands_seconds': lowerOnly,
  'tools.output.max_bytes': lowerOnly,
  'tools.output.max_lines': lowerOnly,
  'tools.environment.denylist': addsToDefault,

  'tools.approval.enabled': only(false, true),
  'tools.approval.mode': only('prompt', 'deny'),
  'tools.approval.allowlist': ignored('lets tools run without asking'),
  'tools.approval.denylist': addsToDefault,
  'tools.approval.prompt_side_effects': only(true),
  'tools.approval.timeout_seconds': lowerOnly,

  'tools.read_file.max_file_read_bytes': lowerOnly,
  'tools.read_file.max_scan_bytes': lowerOnly,
  'tools.edit.require_read_before_write': only(true),
  'tools.edit.max_file_bytes': lowerOnly,
  'tools.apply_patch.max_patch_bytes': lowerOnly,

  'tools.policy.rules': { kind: 'deny-and-ask-rules' },

  // Every mode other than NORMAL asks or forbids more by default (policy/governance-defaults.ts).
  'tools.governance.mode': only('NORMAL', 'ALERT', 'RECOVERY', 'DEGRADED', 'LOCKDOWN'),
  'tools.governance.auto': ignored('changes the mode by itself, back towards NORMAL too'),
  // NORMAL allows everything by default, so its table can only ask or forbid more; another mode's
  // table replaces that mode's stricter defaults.
  'tools.governance.modes.NORMAL.allowed': tightens,
  'tools.governance.modes.NORMAL.ask': tightens,
  'tools.governance.modes.NORMAL.forbidden': tightens,
  'tools.governance.modes.*': ignored("replaces the mode's built-in asks and denials"),
  'tools.governance.tools.*.allowed_in_modes': tightens,
  'tools.governance.tools.*.requires_approval_in_modes': tightens,
  'tools.governance.tools.*.forbidden_in_modes': tightens,
  'tools.governance.tools.*.allowed_paths': tightens,
  'tools.governance.tools.*.forbidden_paths': tightens,
  'tools.governance.tools.*.rate_limit_per_hour': tightens,
  'tools.governance.tools.*.requires_sandbox': only(true),

  'tools.run_command.sandbox': only('os'),
  'tools.run_command.allow': ignored('lets commands run without asking'),
  'tools.run_command.deny': tightens,
  'tools.run_command.ask': tightens,
  'tools.run_command.auto_allow_read_only': only(false),
  'tools.run_command.on_risky': only('ask', 'deny'),
  'tools.run_command.grace_ms': lowerOnly,
  'tools.run_command.allowed_hosts': ignored('lets sandboxed commands reach the network'),
  'tools.shell.backend': only('host', 'disabled'),

  'tools.web.allow_private': ignored('lets web_fetch reach private addresses'),
  'tools.web.allowed_hosts': tightens,
  'tools.web.denied_hosts': tightens,
  'tools.web.max_download_bytes': lowerOnly,
  'tools.web.connect_timeout_seconds': lowerOnly,
  'tools.web.timeout_seconds': lowerOnly,
  'tools.web.max_redirects': lowerOnly,
  'tools.web.user_agent': ignored('changes what web_fetch sends'),
  'tools.web.search': ignored('sends searches to a service the file names'),

  'tools.memory': ignored('chooses the memory store, whose notes are read, and where they are sent'),
  'tools.vault.roots': ignored('gives vault_copyto read access outside the project'),
  'tools.vault.max_bytes': lowerOnly,
  'tools.vault.max_files': lowerOnly,
  'tools.definitions': ignored('describes tools to the model'),
  'tools.advertise_definitions': only(false),

  providers: ignored('model endpoints and keys: where prompts and code are sent'),
  telemetry: ignored('where traces and metrics are sent'),
  journal: ignored('where the journal is kept and how long'),
};

/** The rule for a key path, the most specific pattern first; undefined when none decides it. */
export function ruleFor(keyPath: readonly string[]): TighteningRule | undefined {
  let best: { rule: TighteningRule; wildcards: number; length: number } | undefined;
  for (const [pattern, rule] of Object.entries(TIGHTENING_RULES)) {
    const parts = pattern.split('.');
    // A pattern decides its key and everything under it (`providers` covers providers.openai.model).
    if (parts.length > keyPath.length) continue;
    if (!parts.every((part, i) => part === '*' || part === keyPath[i])) continue;
    const wildcards = parts.filter((part) => part === '*').length;
    if (!best || parts.length > best.length || (parts.length === best.length && wildcards < best.wildcards))
      best = { rule, wildcards, length: parts.length };
  }
  return best?.rule;
}

/** Whether some pattern lies below this table, so the walk must look inside it key by key. */
export function hasRulesBelow(keyPath: readonly string[]): boolean {
  return Object.keys(TIGHTENING_RULES).some((pattern) => {
    const parts = pattern.split('.');
    return parts.length > keyPath.length && keyPath.every((part, i) => parts[i] === '*' || parts[i] === part);
  });
}
