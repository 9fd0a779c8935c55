import type { ToolgateConfig } from '../config/config-schema.js';
import type { AnyToolDefinition } from '../core/tool-definition.js';
import { createListDirectoryTool } from './fs/list-directory.js';
import { createReadFileTool } from './fs/read-file.js';
import { createWriteFileTool } from './fs/write-file.js';

/** The built-in tools, each given only the settings it needs from the config. */
export function builtinTools(config: ToolgateConfig): AnyToolDefinition[] {
  const fileTimeoutMs = config.tools.timeouts.file_operations_seconds * 1000;
  return [
    createReadFileTool({
      maxFileReadBytes: config.tools.read_file.max_file_read_bytes,
      maxScanBytes: config.tools.read_file.max_scan_bytes,
      timeoutMs: fileTimeoutMs,
    }),
    createListDirectoryTool({ timeoutMs: fileTimeoutMs }),
    createWriteFileTool({ timeoutMs: fileTimeoutMs }),
  ];
}
