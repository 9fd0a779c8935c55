#!/usr/bin/env node
// The CLI runs the bundle in dist/bundle (built by `npm ci` / `npm install` through `prepare`, or
// `npm run build`): a few files to read and compile instead of hundreds, for a fast start.
import { existsSync } from 'node:fs';
import module from 'node:module';

const entry = new URL('../dist/bundle/toolgate.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('toolgate: dist/ is missing; run `npm run build` first\n');
  process.exit(1);
}
// Node 22.1+ keeps compiled code between runs; Node 20 has no such cache and compiles every start.
module.enableCompileCache?.();
const { main } = await import(entry.href);
process.exitCode = await main(process.argv);
