#!/usr/bin/env node
// The CLI runs the bundle in dist/bundle (built by `npm ci` / `npm install` through `prepare`, or
// `npm run build`): a few files to read and compile instead of hundreds, for a fast start.
import { existsSync } from 'node:fs';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';

const entry = new URL('../dist/bundle/toolgate.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('toolgate: dist/ is missing; run `npm run build` first\n');
  process.exit(1);
}
// Node 22.1+ can keep compiled code between runs (Node 20 compiles at every start). Kept in the
// user's own cache directory, not in the shared temporary directory Node would choose, where
// another user could leave code for this process to run.
if (module.enableCompileCache) {
  try {
    const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
    module.enableCompileCache(path.join(cache, 'toolgate', 'node-compile-cache'));
  } catch {
    // no cache: compiled as on Node 20
  }
}
// The bash grammar's lexer (tree-sitter-bash, wasm) is one 160 KB function. V8 recompiles it with
// its optimizing tier on the first parse: ~0.6 s of CPU and ~50 MB of memory, in the middle of the
// first run_command. Its baseline code parses a command line in tens of microseconds, so this
// process (ours: a CLI, not a library's host) keeps wasm at that tier.
v8.setFlagsFromString('--liftoff-only');
const { main } = await import(entry.href);
process.exitCode = await main(process.argv);
