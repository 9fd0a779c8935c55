// Runs one command with sandbox = "os" in a process whose PATH has no bwrap or socat.
import { approveAll, createToolgate, validateConfig } from '../../dist/index.js';

const gate = createToolgate({
  config: validateConfig({ tools: { approval: { denylist: [] }, run_command: { sandbox: 'os' } } }),
  roots: [process.argv[2]],
  approver: approveAll,
});
const [r] = await gate.execute([{ id: '1', name: 'run_command', arguments: { command: 'echo hi' } }]);
process.stdout.write(JSON.stringify({ ok: r.ok, content: r.content }));
