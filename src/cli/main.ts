import { Command, CommanderError, Option } from 'commander';
import { configJsonSchema } from '../config/config-schema.js';
import { ConfigError } from '../config/load-config.js';
import { JournalError } from '../journal/journal.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import { DescriptorCheckUnavailable } from '../sandbox/descriptor-check.js';
import { resolveSetup } from './resolve-setup.js';
import { trustCommand } from './untrusted-notice.js';
import { UsageError } from './usage-error.js';
import { CLI_VERSION } from './version.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];
const approveOption = () =>
  new Option(
    '--approve <how>',
    'answer confirmations: ask (on the terminal), all, none, or remote (wait for `toolgate approvals` from anywhere)',
  ).choices(['ask', 'all', 'none', 'remote']);

/** --journal, as every command that opens the journal takes it. */
const journalOption = () =>
  new Option(
    '--journal <file|url>',
    'journal: a SQLite file, or postgres://user@host/db (default [journal] url, else .toolgate/journal.db under the first root)',
  );
/** Telemetry and logs, for the commands that run tools (docs/OPERATIONS.md). */
const otlpOption = () =>
  new Option(
    '--otlp <url>',
    'export traces and metrics to this OpenTelemetry collector (OTLP/HTTP, e.g. http://127.0.0.1:4318)',
  );
const logLevelOption = () =>
  new Option(
    '--log-level <level>',
    'structured log lines (JSON): trace, debug, info, warn (default), error, silent',
  );
const logFileOption = () =>
  new Option('--log-file <file>', 'append the log lines to this file instead of stderr');

/**
 * The options `run` and `chat` share for choosing the model. Declared here, not beside their
 * resolution (provider-options.ts), so that every other command loads none of the provider code.
 */
function withProviderOptions(cmd: Command): Command {
  return cmd
    .option(
      '--provider <name>',
      'openai, openai-responses, anthropic, gemini, openai-compatible, or a [providers.NAME] section',
    )
    .option('--base-url <url>', 'the API endpoint (e.g. http://127.0.0.1:11434/v1 for Ollama)')
    .option('--model <name>', 'the model name')
    .option('--system <text>', "the system prompt (default: the provider section's `system`)")
    .option(
      '--max-iterations <n>',
      'tool batches per turn (default tools.max_tool_iterations_per_user_turn)',
    );
}

export function buildProgram(): Command {
  const program = new Command('toolgate')
    .description('Safe, durable tool execution for LLM agents.')
    .version(CLI_VERSION)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });

  const withSetup = (cmd: Command) =>
    cmd
      .option(
        '--root <dir>',
        'allowed root (repeatable; default: the config, else the current directory)',
        collect,
      )
      .option(
        '--config <file>',
        "config file, applied in full (default: the first --root's toolgate.toml, else ./toolgate.toml, when present; only its stricter settings until `toolgate trust`)",
      );

  withSetup(
    program
      .command('exec')
      .description(
        'Run a batch of tool calls read as JSON from stdin; print the results as JSON, in call order.',
      )
      .addOption(approveOption())
      .option(
        '--session <id>',
        'conversation identity (read-before-edit cache and journal rows are kept per session)',
      )
      .addOption(journalOption())
      .option('--no-journal', 'do not journal this run')
      .addOption(otlpOption())
      .addOption(logLevelOption())
      .addOption(logFileOption())
      .option(
        '--user <name>',
        'whose memory the memory tools use (default [tools.memory] user, else the login name)',
      ),
  ).action(async (opts) => {
    process.exitCode = await (await import('./exec-command.js')).runExec(opts, {
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
    });
  });

  withProviderOptions(
    withSetup(
      program
        .command('run')
        .description(
          'Send one prompt to a model and run the tools it asks for (through policy, sandbox, approvals and journal) until it answers.',
        )
        .argument('<prompt>', 'what to ask the model'),
    ),
  )
    .addOption(approveOption())
    .option(
      '--session <id>',
      'conversation identity: the conversation continues across runs with the same id',
    )
    .addOption(journalOption())
    .option('--no-journal', 'do not journal this run')
    .option(
      '--user <name>',
      'whose memory the memory tools use (default [tools.memory] user, else the login name)',
    )
    .addOption(otlpOption())
    .addOption(logLevelOption())
    .addOption(logFileOption())
    .option('--json', 'print the whole turn as a JSON array of messages')
    .option('--verbose', 'print each tool call and its outcome on stderr as the turn runs')
    .action(async (prompt: string, opts) => {
      process.exitCode = await (await import('./run-prompt-command.js')).runPrompt(prompt, opts, {
        stdout: process.stdout,
        stderr: process.stderr,
      });
    });

  withProviderOptions(
    withSetup(
      program
        .command('chat')
        .description(
          'Chat with a model in the terminal; its tool calls go through policy, sandbox, approvals and journal.',
        ),
    ),
  )
    .option('--session <id>', 'conversation identity: continue the conversation of an earlier chat or run')
    .addOption(journalOption())
    .option('--no-journal', 'do not journal this chat')
    .addOption(otlpOption())
    .addOption(logLevelOption())
    .addOption(logFileOption())
    .option(
      '--user <name>',
      'whose memory the memory tools use (default [tools.memory] user, else the login name)',
    )
    .action(async (opts) => {
      process.exitCode = await (await import('./chat-command.js')).runChat(opts);
    });

  withSetup(
    program
      .command('tools')
      .description('List the available tools.')
      .option('--json', 'print name, tier, risk and JSON Schema of each tool')
      .option(
        '--format <format>',
        'print definitions in a provider shape: openai-chat, openai-responses, anthropic, gemini, mcp',
      ),
  ).action(async (opts) => {
    process.exitCode = (await import('./tools-command.js')).runTools(opts, process.stdout);
  });

  const policy = program.command('policy').description('Inspect the policy.');
  withSetup(
    policy
      .command('explain')
      .description('Show what policy decides for a call, and which rule in which file decided it.')
      .argument('<tool>', 'tool name')
      .argument('[args]', 'arguments as JSON, e.g. \'{"path":"src/a.ts"}\'')
      .option('--json', 'print the explanation as JSON'),
  ).action(async (tool: string, args: string | undefined, opts) => {
    process.exitCode = await (await import('./policy-command.js')).runPolicyExplain(
      tool,
      args,
      opts,
      process.stdout,
    );
  });

  withSetup(
    program
      .command('recover')
      .description(
        'List batches a crash left incomplete (and who holds those still running); resume them with the results they have, discard their results, or take them over.',
      )
      .addOption(journalOption())
      .option(
        '--json',
        'print the incomplete batches as JSON: [{id, session, calls: [{id, name, status}], state: interrupted|running|held, holder?: {worker, pid, host, until, take_over}}]',
      )
      .option(
        '--resume <id>',
        'resume this batch without prompting (calls that ran stay; the rest become errors)',
      )
      .option('--discard <id>', "discard this batch's results without prompting (calls stay visible)")
      .option(
        '--take-over <id>',
        'finish this batch here, as a worker would: calls never started run; a side effect that was running stays outcome unknown',
      )
      .addOption(
        new Option(
          '--approve <how>',
          'for calls that must be asked (a batch that was waiting, or taken over): ask, all, none or remote',
        ).choices(['ask', 'all', 'none', 'remote']),
      ),
  ).action(async (opts) => {
    process.exitCode = await (await import('./recover-command.js')).runRecover(opts, process.stdout);
  });

  withSetup(
    program
      .command('mcp')
      .description(
        'Serve every toolgate tool over MCP (stdio by default), through the same policy, sandbox, approvals and journal.',
      )
      .option(
        '--http <listen>',
        'serve Streamable HTTP on [HOST:]PORT instead (127.0.0.1 unless a host is given); clients send a bearer token: TOOLGATE_MCP_TOKEN, or on loopback the one kept in ~/.local/state/toolgate/mcp-token (other hosts need TOOLGATE_MCP_TOKEN)',
      )
      .option('--max-body <bytes>', 'with --http: largest request body accepted (default 4 MiB)')
      .option(
        '--session-idle <seconds>',
        'with --http: close a client session unused this long, with no call running (default 1800)',
      )
      .addOption(
        new Option(
          '--approve <how>',
          'remote: answer confirmations with `toolgate approvals` from anywhere, not through the client',
        ).choices(['remote']),
      )
      .option('--session <id>', 'conversation identity (read cache and journal rows)')
      .addOption(journalOption())
      .option('--no-journal', 'do not journal')
      .addOption(otlpOption())
      .addOption(logLevelOption())
      .addOption(logFileOption())
      .option(
        '--user <name>',
        'whose memory the memory tools use (default [tools.memory] user, else the login name)',
      ),
  ).action(async (opts) => {
    process.exitCode = await (await import('./mcp-command.js')).runMcp(opts);
  });

  withSetup(
    program
      .command('worker')
      .description(
        'Take over and finish the batches whose worker died (their lease ran out), as long as it runs; several may share one journal.',
      )
      .addOption(journalOption())
      .addOption(approveOption().default('none'))
      .option('--lease-seconds <n>', 'how long this worker holds a batch between renewals', '30')
      .option('--once', 'take over what has expired now, then exit'),
  ).action(async (opts) => {
    process.exitCode = await (await import('./worker-command.js')).runWorker(opts, process.stdout);
  });

  withSetup(
    program
      .command('serve')
      .description(
        'The web console: approvals waiting for a person (with their whole preview), sessions, batches and calls, live.',
      )
      .option(
        '--http <listen>',
        '[HOST:]PORT (127.0.0.1:7480 by default; other hosts need TOOLGATE_CONSOLE_TOKEN)',
      )
      .addOption(journalOption()),
  ).action(async (opts) => {
    process.exitCode = await (await import('./serve-command.js')).runServe(opts, process.stdout);
  });

  const approvalsCmd = program
    .command('approvals')
    .description(
      'Calls waiting for a person, from any process on this journal (those run with --approve remote wait for these answers).',
    );
  withSetup(
    approvalsCmd
      .command('list')
      .description('Every call waiting for an answer, oldest first.')
      .addOption(journalOption())
      .option('--json', 'print [{id, tool, summary, session, requested_at}]'),
  ).action(async (opts) => {
    process.exitCode = (await import('./approvals-command.js')).runApprovalsList(opts, process.stdout);
  });
  withSetup(
    approvalsCmd
      .command('show')
      .description(
        'The whole preview of one waiting call (the command, the diff, what it touches) and its hash.',
      )
      .argument('<id>', 'BATCH.N, as `approvals list` shows it (the batch id may be shortened)')
      .addOption(journalOption()),
  ).action(async (id: string, opts) => {
    process.exitCode = (await import('./approvals-command.js')).runApprovalsShow(id, opts, process.stdout);
  });
  withSetup(
    approvalsCmd
      .command('approve')
      .description('Let one waiting call run.')
      .argument('<id>', 'BATCH.N')
      .option('--always <scope>', 'and remember it: session or project')
      .option('--preview <hash>', 'only if the call is still the one shown with this preview hash')
      .addOption(journalOption()),
  ).action(async (id: string, opts) => {
    process.exitCode = (await import('./approvals-command.js')).runApprovalsApprove(id, opts, process.stdout);
  });
  withSetup(
    approvalsCmd
      .command('deny')
      .description('Refuse one waiting call; the model is told the reason.')
      .argument('<id>', 'BATCH.N')
      .requiredOption('--reason <text>', 'why (the model reads it)')
      .option('--preview <hash>', 'only if the call is still the one shown with this preview hash')
      .addOption(journalOption()),
  ).action(async (id: string, opts) => {
    process.exitCode = (await import('./approvals-command.js')).runApprovalsDeny(id, opts, process.stdout);
  });

  const grantsCmd = program
    .command('grants')
    .description('Standing "always allow" answers on this journal: what each covers, for whom; remove them.');
  withSetup(
    grantsCmd
      .command('list')
      .description('Every grant (or those in force for one session) with its id and what it covers.')
      .addOption(journalOption())
      .option('--session <id>', "only the grants in force for this session (its own and every session's)")
      .option('--json', 'print [{id, tool, scope, session, created_at, covers, honoured, text}]'),
  ).action(async (opts) => {
    process.exitCode = (await import('./grants-command.js')).runGrantsList(opts, process.stdout);
  });
  withSetup(
    grantsCmd
      .command('revoke')
      .description('Remove a grant; every process on the journal asks again from its next call.')
      .argument('[id]', 'the grant, as `grants list` shows it')
      .option('--all', 'every grant (with --session: only that session’s own)')
      .option('--session <id>', 'with --all: only the grants of this session')
      .addOption(journalOption()),
  ).action(async (id: string | undefined, opts) => {
    process.exitCode = await (await import('./grants-command.js')).runGrantsRevoke(id, opts, process.stdout);
  });

  const modeCmd = program
    .command('mode')
    .description(
      'The governance mode (NORMAL, ALERT, DEGRADED, LOCKDOWN, RECOVERY) every toolgate on this journal follows.',
    );
  withSetup(
    modeCmd
      .command('show')
      .description('The mode in force, where it comes from, and its recent changes.')
      .addOption(journalOption())
      .option('--limit <n>', 'how many changes', '10')
      .option('--json', 'print {mode, source, history} as JSON'),
  ).action(async (opts) => {
    process.exitCode = (await import('./mode-command.js')).runModeShow(opts, process.stdout);
  });
  withSetup(
    modeCmd
      .command('set')
      .description('Change the mode, with the reason; running servers re-list their tools.')
      .argument('<mode>', 'NORMAL, ALERT, DEGRADED, LOCKDOWN or RECOVERY')
      .requiredOption('--reason <text>', 'why (kept with the change)')
      .addOption(journalOption()),
  ).action(async (mode: string, opts) => {
    process.exitCode = await (await import('./mode-command.js')).runModeSet(mode, opts, process.stdout);
  });

  const journalCmd = program.command('journal').description('Look at the journal.');
  withSetup(
    journalCmd
      .command('list')
      .description('Recent batches, newest first.')
      .addOption(journalOption())
      .option('--limit <n>', 'how many batches', '20')
      .option('--json', 'print JSON'),
  ).action(async (opts) => {
    process.exitCode = (await import('./journal-command.js')).runJournalList(opts, process.stdout);
  });
  withSetup(
    journalCmd
      .command('show')
      .description('One batch: calls, decisions with the deciding rule, results and timings.')
      .argument('<id>', 'batch id')
      .addOption(journalOption())
      .option('--json', 'print JSON'),
  ).action(async (id: string, opts) => {
    process.exitCode = (await import('./journal-command.js')).runJournalShow(id, opts, process.stdout);
  });

  withSetup(
    journalCmd
      .command('prune')
      .description(
        'Remove complete batches older than an age (never open ones or ones waiting for approval).',
      )
      .option('--older-than <age>', 'e.g. 30d, 12h (default: [journal] retain_days)')
      .addOption(journalOption())
      .option('--json', 'print what was removed as JSON'),
  ).action(async (opts) => {
    process.exitCode = (await import('./journal-command.js')).runJournalPrune(opts, process.stdout);
  });
  withSetup(
    journalCmd
      .command('repair')
      .description(
        'Print and remove staged read-only batches the journal cannot read (a damaged row; `journal list` warns of them).',
      )
      .addOption(journalOption())
      .option('--json', 'print what was removed as JSON'),
  ).action(async (opts) => {
    process.exitCode = (await import('./journal-command.js')).runJournalRepair(opts, process.stdout);
  });
  withSetup(
    journalCmd
      .command('export')
      .description(
        'Every call since a date, one JSON line each (batch, session, tool, arguments, decision, result, times), for audit systems.',
      )
      .option('--since <when>', 'a date (2026-11-01) or an age (7d); default: everything')
      .option('--format <format>', 'jsonl', 'jsonl')
      .addOption(journalOption()),
  ).action(async (opts) => {
    process.exitCode = (await import('./journal-command.js')).runJournalExport(opts, process.stdout);
  });

  const config = program.command('config').description('Work with toolgate.toml.');
  config
    .command('schema')
    .description('Print the JSON Schema of toolgate.toml (for editors).')
    .action(() => {
      process.stdout.write(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
    });
  withSetup(
    config.command('check').description('Validate the config file and print the effective settings.'),
  ).action(async (opts) => {
    const setup = resolveSetup(opts);
    // The same tool-name check every other command runs (a misspelt name in a list is exit 2 there).
    const [{ createToolgate }, { knownToolNamesOnly }] = await Promise.all([
      import('../toolgate.js'),
      import('./open-gate.js'),
    ]);
    knownToolNamesOnly(
      createToolgate({
        config: setup.config,
        roots: setup.roots,
        baseDir: setup.baseDir,
        ...(setup.configFile ? { configFile: setup.configFile } : {}),
      }),
      setup,
    );
    const trust = {
      state: setup.trust.state,
      ignored: setup.trust.ignored,
      ...(setup.configFile && setup.trust.ignored.length > 0
        ? { trust_with: trustCommand(setup.configFile, process.cwd()) }
        : {}),
    };
    process.stdout.write(
      `${JSON.stringify({ file: setup.configFile ?? null, trust, ...setup.config }, null, 2)}\n`,
    );
  });

  program
    .command('trust')
    .description(
      "Trust a project's toolgate.toml as it is now, so all of it applies (until it changes); untrusted, only its stricter settings do.",
    )
    .argument('[dir]', 'the project directory holding toolgate.toml (default: the current directory)')
    .option('--list', 'list the trusted files')
    .option('--revoke', "take the file's trust back")
    .action(async (dir: string | undefined, opts) => {
      process.exitCode = (await import('./trust-command.js')).runTrust(dir, opts, process.stdout);
    });
  return program;
}

export async function main(argv: string[]): Promise<number> {
  // A reader that stopped early (`toolgate tools | head`) is not an error worth a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
  try {
    await buildProgram().parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; usage mistakes with 1 → 2.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (
      error instanceof UsageError ||
      error instanceof ConfigError ||
      error instanceof JournalError ||
      error instanceof DescriptorCheckUnavailable
    ) {
      process.stderr.write(`toolgate: ${sanitizeForTerminal(error.message)}\n`);
      return 2;
    }
    process.stderr.write(
      `toolgate: internal error: ${sanitizeForTerminal((error as Error).stack ?? String(error))}\n`,
    );
    return 1;
  }
}
