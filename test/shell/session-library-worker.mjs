// A library user's whole program: one session-shell command that takes a moment, then close.
// Nothing else keeps the event loop alive, so the process must wait for the shell itself.
import { approveAll, createToolgate, validateConfig } from '../../dist/index.js';

const gate = createToolgate({
  config: validateConfig({
    tools: {
      approval: { denylist: [] },
      run_command: { allow: ['sleep', 'echo'] },
      shell: { backend: 'session' },
    },
  }),
  roots: [process.argv[2]],
  approver: approveAll,
});
const [r] = await gate.execute([
  { id: '1', name: 'run_command', arguments: { command: 'sleep 0.3; echo waited' } },
]);
process.stdout.write(`result: ${r?.content}`);
await gate.close();
process.stdout.write('closed\n');
