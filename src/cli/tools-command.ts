import { DEFINITION_FORMATS, type DefinitionFormat, exportDefinitions } from '../core/export-definitions.js';
import { createToolgate } from '../toolgate.js';
import { knownToolNamesOnly } from './open-gate.js';
import { resolveSetup } from './resolve-setup.js';
import { UsageError } from './usage-error.js';

/** `toolgate tools`: the registered tools, as a table or as JSON in a provider's shape. */
export function runTools(
  options: { json?: boolean; format?: string; config?: string; root?: string[] },
  out: NodeJS.WritableStream,
): number {
  const setup = resolveSetup(options);
  const gate = createToolgate({ config: setup.config, roots: setup.roots, baseDir: setup.baseDir });
  knownToolNamesOnly(gate, setup);
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
  const columns = (out as { columns?: number }).columns;
  for (const t of tools) {
    const lead = `${t.name.padEnd(width)}  ${t.tier.padEnd(14)}  `;
    const text = firstSentence(t.description);
    out.write(`${lead}${columns ? fitWords(text, columns - lead.length - 1) : text}\n`);
  }
  return 0;
}

/** The first sentence: ends at ". " before a capital, never inside "e.g." or "i.e.". */
export function firstSentence(text: string): string {
  const end = /(?<!\b(?:e\.g|i\.e|etc|vs|cf))\.\s+(?=[A-Z`"(])/.exec(text);
  return (end ? text.slice(0, end.index) : text).replace(/\.$/, '');
}

/** Cuts at a word boundary to fit `width` characters (mid-word only for a first word longer than that), marking the cut with "…". */
export function fitWords(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width < 2) return '';
  const cut = text.slice(0, width - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > 0 ? cut.slice(0, space) : cut).replace(/[\s,;:(]+$/, '')}…`;
}
