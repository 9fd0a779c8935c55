import { createToolgate } from '../toolgate.js';
import { resolveSetup } from './resolve-setup.js';
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
  const gate = createToolgate({
    config: setup.config,
    roots: setup.roots,
    baseDir: setup.baseDir,
    ...(setup.configFile ? { configFile: setup.configFile } : {}),
  });
  const call = { id: 'explain', name: tool, arguments: args as Record<string, unknown> };
  await gate.prepare([call]);
  const [planned] = gate.plan([call]);
  if (!planned) throw new Error('planner returned nothing');
  const d = planned.decision;
  const outcome =
    planned.disposition.kind === 'execute'
      ? 'allow'
      : planned.disposition.kind === 'needs_approval'
        ? 'ask'
        : 'deny';
  const explanation = {
    tool,
    outcome,
    reason:
      d?.reason ??
      (planned.disposition.kind === 'resolved' ? planned.disposition.result.error?.message : undefined),
    errorType: planned.disposition.kind === 'resolved' ? planned.disposition.result.error?.type : undefined,
    rule: d?.rule ?? 'validation (before policy)',
    file: d?.file ?? '-',
    risk: d?.risk,
    summary: planned.summary,
    governanceMode: gate.policy.mode,
  };
  if (options.json) {
    out.write(`${JSON.stringify(explanation, null, 2)}\n`);
  } else {
    out.write(
      `${tool}: ${outcome.toUpperCase()}\n  reason: ${explanation.reason}\n  rule:   ${explanation.rule}\n  file:   ${explanation.file}\n` +
        (explanation.summary ? `  call:   ${explanation.summary}\n` : '') +
        `  mode:   ${explanation.governanceMode}\n`,
    );
  }
  return 0;
}
