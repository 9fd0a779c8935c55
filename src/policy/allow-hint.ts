import type { ConfirmationRequest } from '../core/confirmation.js';
import type { PolicyDecision } from '../core/policy-decision.js';

/**
 * The config line that would let a call run without asking (for a call that was asked and not
 * approved) or at all (for a denial), so a denial always says how to allow what was meant. `where`
 * names the config file in use, or where one would be read.
 */
export function hintForAsk(request: ConfirmationRequest, where: string): string {
  const { toolName: tool, rule } = request;
  // No config line lets a deletion through (issue #31 §3: the old hint named one that cannot work).
  if (request.locations.some((l) => l.access === 'delete'))
    return 'none: a deletion can only be approved when asked (at a terminal, or answered with `toolgate approvals approve` or the web console)';
  if (tool === 'run_command') return commandHint(request, where);
  if (rule.startsWith('tools.policy.rules[')) return `change ${rule} (action = "ask") in ${where}`;
  if (rule.startsWith('tools.governance')) return `change ${rule} in ${where}`;
  if (rule.startsWith('tool ') || request.risk === 'high') {
    return `add an allow rule with conditions to ${where}: [[tools.policy.rules]] tool = "${tool}", action = "allow", conditions = [...]`;
  }
  return `add "${tool}" to [tools.approval] allowlist in ${where}`;
}

/** For a policy denial: what to change, or undefined where nothing should (the sandbox). */
export function hintForDenial(decision: PolicyDecision, tool: string, where: string): string | undefined {
  const { rule } = decision;
  if (decision.errorType === 'SandboxViolation' || rule === 'fail-closed') return undefined;
  if (rule === 'tools.approval.denylist') {
    // The built-in denylist holds run_command: then there is no line to remove, only one to write.
    return tool === 'run_command'
      ? `take "run_command" off [tools.approval] denylist in ${where} (it is there by default: write denylist = [] to allow commands by [tools.run_command] rules)`
      : `remove "${tool}" from [tools.approval] denylist in ${where}`;
  }
  if (rule === 'tools.approval.enabled') return `set [tools.approval] enabled = true in ${where}`;
  if (decision.mode) {
    // The mode is the cause (issue #31 §3): how to leave it, the command first.
    const { name, inConfig } = decision.mode;
    const leave = `leave ${name} mode: the user runs \`toolgate mode set NORMAL --reason "…"\`${
      inConfig
        ? `, or sets [tools.governance] mode = "NORMAL" in ${where} (a mode set with \`toolgate mode set\` wins over the config's)`
        : ''
    }`;
    return rule.startsWith('tools.') ? `${leave}; or change ${rule} in ${where}` : leave;
  }
  if (rule === 'tools.approval.mode') return `add "${tool}" to [tools.approval] allowlist in ${where}`;
  if (rule.startsWith('tools.')) return `change ${rule} in ${where}`;
  return undefined;
}

/**
 * Programs that run whatever their arguments say: an allow rule naming one alone would allow every
 * command (hostile review of issue #31, F5), so the hint never proposes it.
 */
const RUNS_ANYTHING = new Set([
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'fish',
  'env',
  'sudo',
  'doas',
  'su',
  'xargs',
  'eval',
  'exec',
  'python',
  'python3',
  'node',
  'deno',
  'bun',
  'perl',
  'ruby',
  'php',
  'lua',
  'nice',
  'nohup',
  'timeout',
  'time',
  'command',
  'builtin',
  'ssh',
  'docker',
  'npx',
]);

function commandHint(request: ConfirmationRequest, where: string): string {
  const { rule } = request;
  if (rule === 'tools.run_command.on_risky' || rule === 'tools.run_command (argument checks)')
    return 'none: this command can only be approved when asked (what it does needs a person to look; no allow rule covers it)';
  if (rule === 'tools.run_command.ask')
    return `take it off [tools.run_command] ask in ${where}, or approve it when asked`;
  if (rule !== 'tools.run_command.allow') return `change ${rule} in ${where}`;
  // The first sub-command no rule covered, as the policy named it; else the line's first word.
  const uncovered =
    /not covered by an allow rule: `([^`]*)`/.exec(request.reason)?.[1] ?? request.detail ?? '';
  const program = uncovered.split(/\s|⏎/)[0] || 'git';
  if (RUNS_ANYTHING.has(program))
    return `none: a command run through ${program} can only be approved when asked (allowing ${program} would allow any command)`;
  // JSON's string escapes are TOML's: the value pastes as a valid TOML string.
  return `add the command to [tools.run_command] allow in ${where} (e.g. allow = [${JSON.stringify(program)}]), or approve it when asked`;
}
