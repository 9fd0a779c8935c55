import type { CommandFacts } from '../core/command-facts.js';
import type { AnyToolDefinition } from '../core/tool-definition.js';
import { ToolError } from '../core/tool-error.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import type { PolicyInput } from '../policy/policy-engine.js';
import type { ResolvedPath } from '../sandbox/sandbox.js';
import { createToolgate, type Toolgate } from '../toolgate.js';
import { knownToolNamesOnly } from './open-gate.js';
import { journalPath, openExistingJournal } from './open-journal.js';
import { resolveSetup, type Setup } from './resolve-setup.js';
import { trustCommand } from './untrusted-notice.js';
import { UsageError } from './usage-error.js';

/**
 * `toolgate policy explain <tool> '<json args>'`: plans the call without running it and prints the
 * outcome and which rule (in which file) decided it.
 */
export async function runPolicyExplain(
  tool: string,
  argsText: string | undefined,
  options: { config?: string; root?: string[]; json?: boolean },
  out: NodeJS.WritableStream,
): Promise<number> {
  let args: unknown = {};
  if (argsText !== undefined) {
    try {
      args = JSON.parse(argsText);
    } catch (error) {
      throw new UsageError(`arguments are not valid JSON (${(error as Error).message})`);
    }
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new UsageError('arguments must be a JSON object');
  }
  const setup = resolveSetup(options);
  // Project grants ("always allow" answers) count too: read from the journal when there is one.
  const journal = openExistingJournal(journalPath(setup, undefined));
  const gate = createToolgate({
    config: setup.config,
    roots: setup.roots,
    baseDir: setup.baseDir,
    ...(setup.configFile ? { configFile: setup.configFile } : {}),
    ...(journal ? { journal } : {}),
  });
  try {
    return await explain(gate, setup, tool, args as Record<string, unknown>, options, out);
  } finally {
    journal?.close();
  }
}

async function explain(
  gate: Toolgate,
  setup: Setup,
  tool: string,
  args: Record<string, unknown>,
  options: { json?: boolean },
  out: NodeJS.WritableStream,
): Promise<number> {
  knownToolNamesOnly(gate, setup);
  const call = { id: 'explain', name: tool, arguments: args as Record<string, unknown> };
  await gate.prepare([call]);
  const [planned] = gate.plan([call]);
  if (!planned) throw new Error('planner returned nothing');
  const rejected = planned.disposition.kind === 'resolved' ? planned.disposition.result.error : undefined;
  // Arguments that fail validation are refused before policy looks at them; the policy decision
  // for this tool is still what the person asked about, so it is shown, with the problem beside it.
  const d =
    planned.decision ??
    (planned.tool ? policyFor(gate, planned.tool, args as Record<string, unknown>) : undefined);
  const policyOutcome = d?.action;
  const outcome =
    planned.disposition.kind === 'execute'
      ? 'allow'
      : planned.disposition.kind === 'needs_approval'
        ? 'ask'
        : (policyOutcome ?? 'deny');
  const problem = planned.decision ? undefined : rejected;
  const explanation = {
    tool,
    outcome,
    reason: d?.reason ?? rejected?.message,
    errorType: planned.decision ? rejected?.type : undefined,
    rule: d?.rule ?? 'validation (before policy)',
    file: d?.file ?? '-',
    risk: d?.risk,
    summary: planned.summary,
    governanceMode: gate.policy.mode,
    configTrust: setup.trust.state,
    ...(setup.trust.ignored.length > 0 && setup.configFile
      ? { ignoredSettings: setup.trust.ignored, trustWith: trustCommand(setup.configFile, process.cwd()) }
      : {}),
    ...(problem && d
      ? {
          argumentsProblem: {
            errorType: problem.type,
            message: `${problem.message} (as sent, the call is refused with ${problem.type} before policy)`,
          },
        }
      : {}),
  };
  if (options.json) {
    out.write(`${JSON.stringify(explanation, null, 2)}\n`);
  } else {
    out.write(
      `${tool}: ${outcome.toUpperCase()}\n  reason: ${explanation.reason}\n  rule:   ${explanation.rule}\n  file:   ${explanation.file}\n` +
        (explanation.summary ? `  call:   ${explanation.summary}\n` : '') +
        `  mode:   ${explanation.governanceMode}\n` +
        (explanation.argumentsProblem ? `  note:   ${explanation.argumentsProblem.message}\n` : '') +
        (explanation.ignoredSettings
          ? sanitizeForTerminal(
              `  config: ${setup.trust.state === 'changed' ? 'changed since it was trusted' : 'not trusted'}; ignored: ${explanation.ignoredSettings.map((s) => s.key).join(', ')}; to apply them: ${explanation.trustWith}\n`,
            )
          : ''),
    );
  }
  return 0;
}

/**
 * The policy decision for arguments that did not validate: the tool and whatever the arguments
 * still say (a `path` string is checked by the sandbox, a `command` string parsed), as the planner
 * would have passed them. Anything that cannot be worked out is left out, never guessed.
 */
function policyFor(gate: Toolgate, tool: AnyToolDefinition, args: Record<string, unknown>) {
  const paths: ResolvedPath[] = [];
  let sandboxError: ToolError | undefined;
  if (typeof args.path === 'string') {
    try {
      paths.push(gate.sandbox.resolve(args.path));
    } catch (error) {
      if (ToolError.isInstance(error)) sandboxError = error;
    }
  }
  let commandFacts: CommandFacts | undefined;
  try {
    commandFacts = typeof args.command === 'string' ? tool.commandFacts?.(args) : undefined;
  } catch {
    commandFacts = undefined;
  }
  const input: PolicyInput = { tool, args, paths, recentCalls: 0 };
  if (sandboxError) input.sandboxError = sandboxError;
  if (commandFacts) input.commandFacts = commandFacts;
  return gate.policy.decide(input);
}
