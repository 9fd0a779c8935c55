import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { createToolgate } from '../../src/toolgate.js';
import { createGlobTool } from '../../src/tools/fs/glob.js';
import { createGrepTool } from '../../src/tools/fs/grep.js';

/** Two gates over `root`: glob and grep on ripgrep (every builtin), and both on JavaScript alone. */
export function globGates(root: string) {
  const config = validateConfig({});
  return {
    ripgrep: createToolgate({ config, roots: [root], approver: approveAll }),
    javascript: createToolgate({
      config,
      roots: [root],
      approver: approveAll,
      builtins: false,
      tools: [createGlobTool({ forceJavaScript: true }), createGrepTool({ forceJavaScript: true })],
    }),
  };
}
