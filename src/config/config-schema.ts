import * as z from 'zod';
import { GOVERNANCE_MODES } from '../core/tier.js';
import { secretInUrl } from '../output/redact-url.js';

/**
 * The `toolgate.toml` schema (DESIGN §2.3, seed 000 §6). Objects are strict so a typo in a key is
 * an error that names it, not a silently ignored setting. Defaults are the safe ones.
 */
const names = z.array(z.string().min(1));
const positiveInt = z.number().int().positive();

const sandbox = z
  .strictObject({
    allowed_roots: names.default(['.']),
    denied_patterns: names.default([]),
    allow_absolute: z.boolean().default(false),
    include_default_denies: z.boolean().default(true),
  })
  .prefault({});

const timeouts = z
  .strictObject({
    default_seconds: z.number().positive().default(30),
    file_operations_seconds: z.number().positive().default(30),
    shell_commands_seconds: z.number().positive().default(300),
  })
  .prefault({});

const output = z
  .strictObject({
    max_bytes: positiveInt.default(102_400),
    /**
     * Lines per result, truncation marker included (seed 001's OutputFormatter `maxLines`). Unset =
     * no line limit: `max_bytes` already bounds what the model gets, and a default cap would cut
     * results that fit today (a 3,000-line file under 100 KB); set it to bound long listings too.
     */
    max_lines: positiveInt.optional(),
  })
  .prefault({});

const environment = z.strictObject({ denylist: names.default([]) }).prefault({});

const approval = z
  .strictObject({
    enabled: z.boolean().default(true),
    mode: z.enum(['auto', 'prompt', 'deny']).default('prompt'),
    allowlist: names.default([]),
    denylist: names.default(['run_command']),
    prompt_side_effects: z.boolean().default(true),
    timeout_seconds: z.number().positive().default(300),
  })
  .prefault({});

const readFile = z
  .strictObject({
    max_file_read_bytes: positiveInt.default(204_800),
    max_scan_bytes: positiveInt.default(2_097_152),
  })
  .prefault({});

const edit = z
  .strictObject({
    /** Read-before-write guard (seed 000 FR-TOOL-PATCH-02): off only for library users who want that. */
    require_read_before_write: z.boolean().default(true),
    max_file_bytes: positiveInt.default(10_485_760),
  })
  .prefault({});

const applyPatch = z.strictObject({ max_patch_bytes: positiveInt.default(524_288) }).prefault({});

const condition = z.strictObject({
  param: z.string().min(1),
  operator: z.enum(['equals', 'contains', 'startsWith', 'matches', 'path-glob', 'host-glob']),
  value: z.union([z.string(), z.array(z.string()).min(1)]),
});

const rule = z.strictObject({
  tool: z.string().min(1),
  action: z.enum(['allow', 'deny', 'ask']),
  conditions: z.array(condition).default([]),
  risk: z.enum(['low', 'medium', 'high']).optional(),
  message: z.string().optional(),
});

const policy = z.strictObject({ rules: z.array(rule).default([]) }).prefault({});

const mode = z.enum(GOVERNANCE_MODES);

const governanceTool = z.strictObject({
  allowed_in_modes: z.array(mode).optional(),
  requires_approval_in_modes: z.array(mode).default([]),
  forbidden_in_modes: z.array(mode).default([]),
  allowed_paths: names.default([]),
  forbidden_paths: names.default([]),
  rate_limit_per_hour: positiveInt.optional(),
  /**
   * The tool refuses to run outside the OS sandbox (seed 002 §5.1). Only run_command runs programs
   * under it, so only run_command may say so.
   */
  requires_sandbox: z.boolean().default(false),
});

const governanceMode = z.strictObject({
  allowed: names.default([]),
  ask: names.default([]),
  forbidden: names.default([]),
});

/** Automatic mode changes (docs/OPERATIONS.md); off unless enabled. */
const governanceAuto = z
  .strictObject({
    enabled: z.boolean().default(false),
    /** DEGRADED when the disk holding a root or the journal has less free space than this. */
    min_free_bytes: positiveInt.default(64 * 1024 * 1024),
    /** LOCKDOWN after this many refusals (policy, sandbox) within `window_seconds`: a model probing the fence. */
    lockdown_after_refusals: positiveInt.default(10),
    window_seconds: positiveInt.default(60),
    /** After an automatic mode's cause is gone: RECOVERY, then NORMAL once this long has passed quietly. */
    quiet_seconds: positiveInt.default(300),
  })
  .prefault({});

const governance = z
  .strictObject({
    mode: mode.default('NORMAL'),
    auto: governanceAuto,
    modes: z.partialRecord(mode, governanceMode).default({}),
    tools: z
      .record(z.string(), governanceTool)
      .default({})
      .superRefine((tools, ctx) => {
        for (const [name, tool] of Object.entries(tools)) {
          if (tool.requires_sandbox && name !== 'run_command')
            ctx.addIssue({
              code: 'custom',
              path: [name, 'requires_sandbox'],
              message: `requires_sandbox applies to run_command only (the one tool that runs programs under the OS sandbox); ${name} runs inside toolgate, under the path sandbox always`,
            });
        }
      }),
  })
  .prefault({});

const runCommand = z
  .strictObject({
    /** "os" runs commands under the OS sandbox (bubblewrap via @anthropic-ai/sandbox-runtime). */
    sandbox: z.enum(['none', 'os']).default('none'),
    /** Prefix rules on whole words, applied to every sub-command: "git status" allows `git status -s`. */
    allow: names.default([]),
    deny: names.default([]),
    ask: names.default([]),
    /** Let a built-in list of read-only commands (ls, cat, git status …) run without asking. */
    auto_allow_read_only: z.boolean().default(false),
    /** What substitutions, redirections to files, eval and unparsable commands get. */
    on_risky: z.enum(['ask', 'deny']).default('ask'),
    /** After SIGTERM on timeout or cancel, how long before SIGKILL. */
    grace_ms: positiveInt.default(2000),
    /** Hosts a sandboxed command may reach (network is off otherwise). */
    allowed_hosts: names.default([]),
  })
  .prefault({});

/** Where run_command's commands run (docs/OPERATIONS.md). */
const shell = z
  .strictObject({
    /** `host`: each command in a fresh bash. `session`: one persistent bash per session. `disabled`: run_command is listed nowhere and refused. */
    backend: z.enum(['host', 'session', 'disabled']).default('host'),
  })
  .prefault({});

/** The memory tool's store. */
const memory = z
  .strictObject({
    /** Its SQLite file, relative to the first root (":memory:" keeps it in memory). */
    file: z.string().min(1).default('.toolgate/memory.db'),
    /** The project's name in the store; with the user it makes the namespace (each sees only its own). */
    namespace: z.string().min(1).default('project'),
    /** Whose memory: `--user` wins over this; without either, the login name of the process. */
    user: z.string().min(1).max(200).optional(),
    /** An OpenAI-compatible embeddings endpoint: with it, search is hybrid (meaning and words). */
    embeddings: z
      .strictObject({
        /** The full URL, e.g. http://127.0.0.1:11434/v1/embeddings (Ollama). */
        url: z.url(),
        model: z.string().min(1),
        /** The variable holding the key, if the endpoint needs one (OpenAI: OPENAI_API_KEY). */
        api_key_env: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'api_key_env is the name of an environment variable')
          .optional(),
        timeout_seconds: z.number().positive().default(30),
      })
      .optional(),
    /** Hybrid score = vector_weight × cosine + fts_weight × BM25 relative to the best match. */
    vector_weight: z.number().min(0).max(1).default(0.7),
    fts_weight: z.number().min(0).max(1).default(0.3),
  })
  .prefault({});

/** web_search's provider (docs/WEB.md). */
const webSearch = z
  .strictObject({
    provider: z.enum(['searxng', 'brave', 'tavily']).optional(),
    /** SearXNG: your instance (required). Brave, Tavily: their API unless you set another. */
    base_url: z.url().optional(),
    /** The variable holding the key (default BRAVE_API_KEY, TAVILY_API_KEY, SEARXNG_API_KEY). */
    api_key_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'api_key_env is the name of an environment variable')
      .optional(),
    /** The key itself; the environment is the better place for it. */
    api_key: z.string().min(1).optional(),
    timeout_seconds: z.number().positive().default(15),
  })
  .prefault({});

/** web_fetch (docs/WEB.md). */
const web = z
  .strictObject({
    /** `host:port` entries that may be fetched although private: a local docs server, a test server. */
    allow_private: z
      .array(
        z
          .string()
          .regex(
            /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/,
            'allow_private entries are host:port, e.g. "127.0.0.1:8080", "localhost:3000" or "[::1]:8080"',
          ),
      )
      .default([]),
    /** Globs on the host name: when any are given, only those (public) hosts may be fetched. */
    allowed_hosts: names.default([]),
    /** Globs on the host name that are never fetched. */
    denied_hosts: names.default([]),
    max_download_bytes: positiveInt.default(5 * 1024 * 1024),
    connect_timeout_seconds: z.number().positive().default(10),
    /** The whole fetch: redirects, download and conversion. */
    timeout_seconds: z.number().positive().default(30),
    max_redirects: z.number().int().min(0).max(10).default(5),
    user_agent: z.string().min(1).default('toolgate-web-fetch/0.1'),
    search: webSearch,
  })
  .prefault({});

/** vault_copyto (docs/VAULT.md): read-only stores outside the workspace. */
const vault = z
  .strictObject({
    /** Directories only vault_copyto may read; every other tool is denied them, even inside a root. */
    roots: z.array(z.string().min(1)).default([]),
    /** Most bytes one copy may bring over (a file, or a whole tree). */
    max_bytes: positiveInt.default(100 * 1024 * 1024),
    /** Most files one copy of a tree may bring over. */
    max_files: positiveInt.default(10_000),
  })
  .prefault({});

const tools = z
  .strictObject({
    mode: z.enum(['disabled', 'parse_only', 'enabled']).default('enabled'),
    allow_parallel: z.boolean().default(false),
    max_tool_calls_per_batch: positiveInt.default(8),
    max_tool_iterations_per_user_turn: positiveInt.default(4),
    max_tool_args_bytes: positiveInt.default(262_144),
    /** The same call failing this many times in one user turn stops the turn (seed 003 self-correction). */
    max_repeated_failures: positiveInt.default(3),
    sandbox,
    timeouts,
    output,
    environment,
    approval,
    read_file: readFile,
    apply_patch: applyPatch,
    edit,
    policy,
    governance,
    run_command: runCommand,
    shell,
    web,
    memory,
    vault,
    /** Tools advertised in parse_only mode whose results a person supplies (CFG-TOOLS-02). */
    definitions: z
      .array(
        z.strictObject({
          name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'tool names are 1-64 letters, digits, _ or -'),
          description: z.string().default(''),
          parameters: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {} }),
        }),
      )
      .default([]),
    /** Also advertise config-defined tools in enabled mode (CFG-TOOLS-02a); they cannot run. */
    advertise_definitions: z.boolean().default(false),
  })
  .prefault({});

/** One model endpoint (`[providers.NAME]`); `toolgate run --provider NAME` picks it. */
const provider = z.strictObject({
  kind: z.enum(['openai', 'openai-responses', 'anthropic', 'gemini', 'openai-compatible']).optional(),
  base_url: z.url().optional(),
  model: z.string().min(1).optional(),
  /** Prefer the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY) or api_key_env. */
  api_key: z.string().min(1).optional(),
  api_key_env: z.string().min(1).optional(),
  max_tokens: positiveInt.default(4096),
  /** The model's context window in tokens, for the tool-output budget (FR-REG-04b). */
  context_tokens: positiveInt.optional(),
  system: z.string().optional(),
  /** A server silent this long (no answer, or no byte mid-stream) fails the turn instead of hanging. */
  idle_timeout_seconds: positiveInt.default(300),
});

/** OpenTelemetry export from the CLI (docs/OPERATIONS.md); `--otlp URL` wins. */
const telemetry = z
  .strictObject({
    /** An OTLP/HTTP collector, e.g. http://127.0.0.1:4318: traces and metrics go there. */
    otlp_endpoint: z.url().optional(),
  })
  .prefault({});

/** The journal: where it is, and its retention (docs/DURABILITY.md, docs/SCALING.md). */
const journal = z
  .strictObject({
    /** Complete batches older than this many days are removed when a command opens the journal. */
    retain_days: z.number().positive().optional(),
    /**
     * A PostgreSQL journal instead of the SQLite file (docs/SCALING.md): `postgres://user@host/db`.
     * No password here: node-postgres takes it from PGPASSWORD (or ~/.pgpass).
     */
    url: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// URL')
      // Anywhere in it (user:password@, ?password=, ?sslpassword=, any case): the URL is printed.
      .superRefine((u, ctx) => {
        const secret = secretInUrl(u);
        if (secret)
          ctx.addIssue({
            code: 'custom',
            message: `a URL without a password: put the password in PGPASSWORD (or ~/.pgpass), never in the config file; this URL holds ${secret}`,
          });
      })
      .optional(),
  })
  .prefault({});

export const configSchema = z.strictObject({
  tools,
  providers: z.record(z.string(), provider).default({}),
  telemetry,
  journal,
});

export type ToolgateConfig = z.output<typeof configSchema>;
export type ToolgateConfigInput = z.input<typeof configSchema>;
export type PolicyRule = z.output<typeof rule>;
export type PolicyCondition = z.output<typeof condition>;
export type GovernanceToolConfig = z.output<typeof governanceTool>;
export type ProviderConfig = z.output<typeof provider>;
export type GovernanceModeConfig = z.output<typeof governanceMode>;

/** JSON Schema of the config file, for editors (`toolgate config schema`). */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(configSchema, { io: 'input' }) as Record<string, unknown>;
}
