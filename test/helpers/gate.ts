import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import type { ToolResult } from '../../src/core/tool-result.js';
import { createToolgate, type Toolgate } from '../../src/toolgate.js';

/** A real pipeline over `root` that approves everything, and a one-call helper. */
export function gateFor(
  root: string,
  tools: Record<string, unknown> = {},
): { gate: Toolgate; call: (name: string, args: Record<string, unknown>) => Promise<ToolResult> } {
  const gate = createToolgate({ config: validateConfig({ tools }), roots: [root], approver: approveAll });
  let n = 0;
  const call = async (name: string, args: Record<string, unknown>) => {
    const [r] = await gate.execute([{ id: `c${n++}`, name, arguments: args }]);
    if (!r) throw new Error('no result');
    return r;
  };
  return { gate, call };
}
