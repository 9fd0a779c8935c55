import type { ToolgateConfig } from '../config/config-schema.js';
import { lazyTool } from '../core/lazy-tool.js';
import type { AnyToolDefinition } from '../core/tool-definition.js';
import { DEFAULT_DENIED_PATTERNS, TOOLGATE_OWN_PATTERNS } from '../sandbox/default-denies.js';
import { type DescriptorProbe, requireDescriptorCheck } from '../sandbox/descriptor-check.js';
import { BUILTIN_LISTING } from './builtin-listing.js';
import { createDeleteFileTool } from './fs/delete-file.js';
import { createEditFileTool } from './fs/edit-file.js';
import { createGlobTool } from './fs/glob.js';
import { createGrepTool } from './fs/grep.js';
import { createListDirectoryTool } from './fs/list-directory.js';
import { MemoryReadCache, type ReadCache } from './fs/read-cache.js';
import { createReadFileTool } from './fs/read-file.js';
import { createReadManyFilesTool } from './fs/read-many-files.js';
import { StaleGuard } from './fs/stale-guard.js';
import { createWriteFileTool } from './fs/write-file.js';
import type { ConversationMessage } from './memory/conversation-search.js';
import { createEmbedder } from './memory/embeddings-client.js';
import { memoryFileLocation } from './memory/memory-file.js';
import { MemoryHandle } from './memory/memory-handle.js';
import { memoryNamespace } from './memory/memory-namespace.js';
import { MemoryRetrieval } from './memory/memory-retrieval.js';
import { SqliteMemoryStore } from './memory/memory-store.js';
import { createMemoryTool } from './memory/memory-tool.js';
import { createNoteTools } from './memory/note-tools.js';
import { createApplyPatchTool } from './patch/apply-patch.js';
import { JobManager } from './shell/background-jobs.js';
import { OsSandbox } from './shell/os-sandbox.js';
import { createReadJobOutputTool } from './shell/read-job-output.js';
import { createRunCommandTool, RUN_COMMAND_SESSION_DESCRIPTION } from './shell/run-command.js';
import { createGitStatusTool } from './system/git-status.js';
import { createProcessHealthTool } from './system/process-health.js';
import { createSystemLogsTool } from './system/system-logs.js';
import { createSystemMetricsTool } from './system/system-metrics.js';
import { MemoryTodoStore, type TodoStore } from './todos/todo-store.js';
import { createWriteTodosTool } from './todos/write-todos.js';
import { createVaultCopyTool } from './vault/vault-copyto.js';
import { createWebFetchTool } from './web/web-fetch.js';
import { createWebSearchTool } from './web/web-search.js';

export interface SessionForTools {
  readCache?: ReadCache;
  /** The sandbox's canonical roots and toolgate's own files, for the OS sandbox of run_command. */
  roots?: readonly string[];
  deniedFiles?: readonly string[];
  /** Directories no tool but vault_copyto reads (the vaults), resolved; denied to commands too. */
  deniedDirs?: readonly string[];
  /** Where relative vault roots resolve. */
  baseDir?: string;
  /** The session's todo list (write_todos); in memory when not given. */
  todos?: TodoStore;
  /** Whose memory (`--user`); wins over `[tools.memory] user`. */
  user?: string | undefined;
  /** The session's conversation (memory_search include_conversation); absent when none is kept. */
  conversation?: (() => readonly ConversationMessage[]) | undefined;
  /** What the descriptor check needs of the machine (default: this one); tests give another. */
  descriptorProbe?: DescriptorProbe;
}

/** The tools that open files through safe-fs, so need its descriptor check (DESIGN §4). */
export const FILE_TOOLS: ReadonlySet<string> = new Set([
  'read_file',
  'read_many_files',
  'list_directory',
  'glob',
  'grep',
  'delete_file',
  'write_file',
  'edit_file',
  'apply_patch',
  'vault_copyto',
]);

/**
 * The built-in tools, each given only the settings it needs from the config. Each is constructed
 * the first time it is used: until then its listing (name, description, JSON Schemas) comes from
 * BUILTIN_LISTING, computed ahead of time, so a server answers tools/list without converting zod
 * or constructing a tool, and a command constructs only the tools its calls name.
 */
export function builtinTools(config: ToolgateConfig, session: SessionForTools = {}): AnyToolDefinition[] {
  const off = switchedOffTools(config);
  const makers = builtinToolMakers(config, session).filter(([name]) => !off.has(name));
  // Fail closed: where the descriptor check cannot run, the file tools refuse to start (issue #31 §4).
  if (makers.some(([name]) => FILE_TOOLS.has(name))) requireDescriptorCheck(session.descriptorProbe);
  return makers.map(([name, make]) => {
    const listed = BUILTIN_LISTING[name];
    // The session shell is described as such (its listing is otherwise the host shell's).
    const listing =
      listed && name === 'run_command' && config.tools.shell.backend === 'session'
        ? { ...listed, description: RUN_COMMAND_SESSION_DESCRIPTION }
        : listed;
    // A tool missing from the listing (added since it was generated) is simply constructed now.
    return listing ? lazyTool(name, listing, make) : make();
  });
}

/**
 * Each built-in's name and how to construct it from the config, in order. The tools of one call of
 * this share one session's stale guard and background jobs.
 */
export function builtinToolMakers(
  config: ToolgateConfig,
  session: SessionForTools = {},
): [name: string, make: () => AnyToolDefinition][] {
  const fileTimeoutMs = config.tools.timeouts.file_operations_seconds * 1000;
  const { edit } = config.tools;
  const guard = new StaleGuard(
    edit.require_read_before_write ? (session.readCache ?? new MemoryReadCache()) : undefined,
  );
  const maxFileBytes = edit.max_file_bytes;
  const jobs = new JobManager(Math.max(4096, config.tools.output.max_bytes));
  // One store for memory and the note tools, opened on first use: listing them opens nothing.
  let memorySettings: { memory: MemoryHandle; namespace: string } | undefined;
  const memory = () => {
    memorySettings ??= openMemorySettings(config, session);
    return memorySettings;
  };
  let noteTools: ReturnType<typeof createNoteTools> | undefined;
  const notes = () => {
    noteTools ??= createNoteTools({
      ...memory(),
      conversation: session.conversation,
      ftsWeight: config.tools.memory.fts_weight,
    });
    return noteTools;
  };
  return [
    [
      'read_file',
      () =>
        createReadFileTool({
          maxFileReadBytes: config.tools.read_file.max_file_read_bytes,
          maxScanBytes: config.tools.read_file.max_scan_bytes,
          timeoutMs: fileTimeoutMs,
          guard,
        }),
    ],
    [
      'read_many_files',
      () =>
        createReadManyFilesTool({
          maxFileReadBytes: config.tools.read_file.max_file_read_bytes,
          guard,
          timeoutMs: fileTimeoutMs,
        }),
    ],
    ['list_directory', () => createListDirectoryTool({ timeoutMs: fileTimeoutMs })],
    ['glob', () => createGlobTool({ timeoutMs: fileTimeoutMs })],
    ['grep', () => createGrepTool({ timeoutMs: fileTimeoutMs })],
    ['delete_file', () => createDeleteFileTool({ timeoutMs: fileTimeoutMs, guard })],
    ['write_file', () => createWriteFileTool({ timeoutMs: fileTimeoutMs, guard, maxFileBytes })],
    ['edit_file', () => createEditFileTool({ timeoutMs: fileTimeoutMs, guard, maxFileBytes })],
    [
      'apply_patch',
      () =>
        createApplyPatchTool({
          timeoutMs: fileTimeoutMs,
          guard,
          maxFileBytes,
          maxPatchBytes: config.tools.apply_patch.max_patch_bytes,
        }),
    ],
    [
      'run_command',
      () =>
        createRunCommandTool({
          maxTimeoutMs: config.tools.timeouts.shell_commands_seconds * 1000,
          graceMs: config.tools.run_command.grace_ms,
          envDenylist: config.tools.environment.denylist,
          keepBytes: Math.max(4096, config.tools.output.max_bytes),
          jobs,
          requiresSandbox: config.tools.governance.tools.run_command?.requires_sandbox === true,
          session: config.tools.shell.backend === 'session',
          ...(config.tools.run_command.sandbox === 'os'
            ? {
                osSandbox: new OsSandbox({
                  roots: session.roots ?? [],
                  deniedPatterns: [
                    ...TOOLGATE_OWN_PATTERNS,
                    ...(config.tools.sandbox.include_default_denies ? DEFAULT_DENIED_PATTERNS : []),
                    ...config.tools.sandbox.denied_patterns,
                  ],
                  deniedFiles: [...(session.deniedFiles ?? []), ...(session.deniedDirs ?? [])],
                  allowedHosts: config.tools.run_command.allowed_hosts,
                }),
              }
            : {}),
        }),
    ],
    ['read_job_output', () => createReadJobOutputTool({ jobs, graceMs: config.tools.run_command.grace_ms })],
    ['system_metrics_snapshot', () => createSystemMetricsTool()],
    ['check_process_health', () => createProcessHealthTool()],
    ['read_system_logs', () => createSystemLogsTool()],
    ['git_status', () => createGitStatusTool()],
    ['write_todos', () => createWriteTodosTool(session.todos ?? new MemoryTodoStore())],
    [
      'vault_copyto',
      () =>
        createVaultCopyTool({
          roots: config.tools.vault.roots,
          baseDir: session.baseDir ?? process.cwd(),
          maxBytes: config.tools.vault.max_bytes,
          maxFiles: config.tools.vault.max_files,
          timeoutMs: config.tools.timeouts.shell_commands_seconds * 1000,
          // The user's denials hold inside a vault too: nothing they deny is copied out of one.
          deniedPatterns: config.tools.sandbox.denied_patterns,
          includeDefaultDenies: config.tools.sandbox.include_default_denies,
        }),
    ],
    ['memory', () => createMemoryTool(memory())],
    ['memory_search', () => notes().search],
    ['memory_save', () => notes().save],
    ['memory_update', () => notes().update],
    ['memory_delete', () => notes().remove],
    [
      'web_fetch',
      () => {
        const web = config.tools.web;
        return createWebFetchTool({
          allowPrivate: web.allow_private,
          allowedHosts: web.allowed_hosts,
          deniedHosts: web.denied_hosts,
          maxDownloadBytes: web.max_download_bytes,
          connectTimeoutMs: web.connect_timeout_seconds * 1000,
          timeoutMs: web.timeout_seconds * 1000,
          maxRedirects: web.max_redirects,
          userAgent: web.user_agent,
        });
      },
    ],
    [
      'web_search',
      () => {
        const search = config.tools.web.search;
        return createWebSearchTool({
          ...(search.provider ? { provider: search.provider } : {}),
          ...(search.base_url ? { baseUrl: search.base_url } : {}),
          ...(search.api_key ? { apiKey: search.api_key } : {}),
          ...(search.api_key_env ? { apiKeyEnv: search.api_key_env } : {}),
          timeoutMs: search.timeout_seconds * 1000,
          userAgent: config.tools.web.user_agent,
        });
      },
    ],
  ];
}

/** The memory store's handle and this session's namespace (project and user). */
function openMemorySettings(config: ToolgateConfig, session: SessionForTools) {
  const m = config.tools.memory;
  const where = memoryFileLocation(m.file, session.roots?.[0] ?? process.cwd()) ?? ':memory:';
  const embeddings = m.embeddings;
  const embedder = embeddings
    ? createEmbedder({
        url: embeddings.url,
        model: embeddings.model,
        apiKey: embeddings.api_key_env ? process.env[embeddings.api_key_env] : undefined,
        timeoutMs: embeddings.timeout_seconds * 1000,
      })
    : undefined;
  const handle = new MemoryHandle(() => {
    const store = SqliteMemoryStore.open(where);
    const retrieval = new MemoryRetrieval(store, {
      embedder,
      vectorWeight: m.vector_weight,
      ftsWeight: m.fts_weight,
    });
    return { store, retrieval };
  });
  return { memory: handle, namespace: memoryNamespace(m.namespace, session.user ?? m.user) };
}

/**
 * Built-ins the config switches off, each with what a call to it is told: `[tools.shell] backend =
 * "disabled"` takes run_command and read_job_output out of every listing.
 */
export function switchedOffTools(config: ToolgateConfig): ReadonlyMap<string, string> {
  if (config.tools.shell.backend !== 'disabled') return new Map();
  const why =
    'commands cannot run here: [tools.shell] backend = "disabled" in the config; use the file tools instead';
  return new Map([
    ['run_command', `run_command is switched off (${why})`],
    ['read_job_output', `read_job_output is switched off (${why})`],
  ]);
}
