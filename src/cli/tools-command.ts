import { DEFINITION_FORMATS, type DefinitionFormat, exportDefinitions } from '../core/export-definitions.js';
import { createToolgate } from '../toolgate.js';
import { resolveSetup } from './resolve-setup.js';
import { UsageError } from './usage-error.js';

/** `toolgate tools`: the registered tools, as a table or as JSON in a provider's shape. */
export function runTools(
  options: { json?: boolean; format?: string; config?: string; root?: string[] },
  out: NodeJS.WritableStream,
): number {
  const setup = resolveSetup(options);
  const gate = createToolgate({ config: setup.config, roots: setup.roots, baseDir: setup.baseDir });
  const tools = gate.registry.definitions();
  if (options.format !== undefined) {
    if (!DEFINITION_FORMATS.includes(options.format as DefinitionFormat)) {
      throw new UsageError(`--format must be one of ${DEFINITION_FORMATS.join(', ')}`);
    }
    out.write(`${JSON.stringify(exportDefinitions(tools, options.format as DefinitionFormat), null, 2)}\n`);
    return 0;
  }
  if (options.json) {
    const rows = tools.map((t) => ({
      name: t.name,
      description: t.description,
      tier: t.tier,
      risk: t.risk,
      category: t.category,
      requiresApproval: t.requiresApproval,
      inputSchema: t.inputSchema,
    }));
    out.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(...tools.map((t) => t.name.length), 4);
  for (const t of tools) {
    out.write(`${t.name.padEnd(width)}  ${t.tier.padEnd(14)}  ${t.description.split('. ')[0]}\n`);
  }
  return 0;
}
