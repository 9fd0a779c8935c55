import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpToolsList, runToExit } from '../../bench/startup.js';
import { defaultConfig } from '../../src/config/load-config.js';
import { exportDefinitions } from '../../src/core/export-definitions.js';
import { listingOf } from '../../src/core/lazy-tool.js';
import { builtinToolMakers } from '../../src/tools/builtin-tools.js';
import { makeTempDir } from '../helpers/workspace.js';
import { REPO } from './run-cli.js';

const BIN = path.join(REPO, 'bin', 'toolgate.js');

// Loaded before the CLI (`node --import`): records every module Node loads through its ESM loader
// (the bundle's chunks, packages left outside it, built-ins) in the file named by TOOLGATE_LOAD_LOG.
const LOG_LOADS = `data:text/javascript,${encodeURIComponent(`
  import { register } from 'node:module';
  register('data:text/javascript,' + encodeURIComponent(\`
    import { appendFileSync } from 'node:fs';
    export async function load(url, context, next) {
      appendFileSync(process.env.TOOLGATE_LOAD_LOG, url + '\\\\n');
      return next(url, context);
    }\`));
`)}`;

function loadedBy(log: string) {
  const urls = readFileSync(log, 'utf8').trim().split('\n');
  return urls
    .filter((u) => u.startsWith('file:'))
    .map((u) => path.relative(REPO, new URL(u).pathname))
    .filter((f) => !f.startsWith('..')); // the data: hooks themselves
}

describe('the CLI runs as a bundle (dist/bundle, built by npm run build)', () => {
  it('toolgate mcp answers tools/list from the bundle alone, with the listing the tools produce', async () => {
    const dir = makeTempDir();
    const log = path.join(dir, 'loads.txt');
    const child = await mcpToolsListWithLog(log, dir);
    expect(child.tools).toBe(24);
    const files = loadedBy(log);
    expect(files[0]).toBe('bin/toolgate.js');
    // Only the bundle's own files: ripgrep's package is read when grep or glob first runs, and
    // better-sqlite3's native addon is required, not imported. Nothing of zod, ajv, the SDK, ink,
    // hono or tree-sitter.
    expect(files.filter((f) => !f.startsWith('dist/bundle/') && f !== 'bin/toolgate.js')).toEqual([]);
    expect(files.filter((f) => /mcp-http|chat-|tui/.test(f))).toEqual([]);
    // What a client gets is what the tools themselves give (zod → JSON Schema), not stale data.
    const listed = (child.list as { tools: { name: string; inputSchema: unknown; outputSchema?: unknown }[] })
      .tools;
    const expected = exportDefinitions(
      builtinToolMakers(defaultConfig()).map(([name, make]) => ({ name, ...listingOf(make()) })),
      'mcp',
    ) as { name: string; inputSchema: unknown }[];
    for (const tool of expected) {
      expect(listed.find((t) => t.name === tool.name)?.inputSchema).toEqual(tool.inputSchema);
    }
  });

  it('toolgate exec runs a read from the bundle, loading nothing a read does not use', async () => {
    const dir = makeTempDir();
    const log = path.join(dir, 'loads.txt');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path.join(dir, 'a.txt'), 'hello\n');
    const run = await runToExit(process.execPath, ['--import', LOG_LOADS, BIN, 'exec'], {
      cwd: dir,
      input: JSON.stringify([{ id: '1', name: 'read_file', arguments: { path: 'a.txt' } }]),
      env: { ...process.env, TOOLGATE_LOAD_LOG: log },
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)[0]).toMatchObject({ ok: true, content: 'hello\n' });
    const files = loadedBy(log);
    expect(files.filter((f) => !f.startsWith('dist/bundle/') && f !== 'bin/toolgate.js')).toEqual([]);
    expect(files.filter((f) => /mcp|chat-|tui|dist-/.test(f))).toEqual([]);
  });
});

function mcpToolsListWithLog(log: string, root: string) {
  return mcpToolsList(process.execPath, ['--import', LOG_LOADS, BIN, 'mcp', '--root', root], {
    cwd: root,
    env: { ...process.env, TOOLGATE_LOAD_LOG: log },
  });
}
