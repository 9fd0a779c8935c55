// Uses safe-fs directly, as a library user's own tool would, and reports what each call did.
// Run by descriptor-check-no-proc.test.ts inside bubblewrap with no /proc mounted.

import { openForRead, readSmallFileVerified, writeFileAtomic } from '../../dist/sandbox/safe-fs.js';
import { Sandbox } from '../../dist/sandbox/sandbox.js';

const root = process.argv[2];
const sandbox = new Sandbox({ roots: [root] });
const outcome = async (run) => {
  try {
    await run();
    return 'ok';
  } catch (error) {
    return `${error.type ?? error.name}: ${error.message}`;
  }
};
const target = sandbox.resolve('a.txt');
const results = {
  readSmall: await outcome(() => readSmallFileVerified(target, sandbox, 1024)),
  openForRead: await outcome(async () => (await openForRead(target, sandbox, 'file')).handle.close()),
  write: await outcome(() =>
    writeFileAtomic(sandbox.resolve('b.txt'), sandbox, 'new\n', { overwrite: false, createParents: false }),
  ),
};
process.stdout.write(JSON.stringify(results));
