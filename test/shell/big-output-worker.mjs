// Runs a command printing `bytes` of output through run_command and reports peak RSS and time.
import { performance } from 'node:perf_hooks';
import { approveAll, createToolgate, validateConfig } from '../../dist/index.js';

const [root, bytes] = [process.argv[2], Number(process.argv[3])];
const gate = createToolgate({
  config: validateConfig({ tools: { approval: { denylist: [] }, run_command: { allow: ['head', 'tr'] } } }),
  roots: [root],
  approver: approveAll,
});
// One small command first: the shell parser and the pipe pool are set up once per process.
await gate.execute([{ id: '0', name: 'run_command', arguments: { command: 'true' } }]);
let chunks = 0;
const start = performance.now();
const before = process.memoryUsage().rss;
const peakBefore = process.resourceUsage().maxRSS * 1024;
const [r] = await gate.execute(
  [{ id: '1', name: 'run_command', arguments: { command: `head -c ${bytes} /dev/zero | tr '\\0' 'x'` } }],
  {
    onEvent: (e) => {
      if (e.type === 'stdout') chunks++;
    },
  },
);
const seconds = (performance.now() - start) / 1000;
process.stdout.write(
  JSON.stringify({
    ok: r.ok,
    contentBytes: Buffer.byteLength(r.content),
    metadata: r.metadata,
    chunks,
    seconds,
    rssBefore: before,
    peakBefore,
    maxRss: process.resourceUsage().maxRSS * 1024,
  }),
);
