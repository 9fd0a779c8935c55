// The floor for the "1 GB as MCP progress" rows of bench/big-output.js: the least a Node MCP stdio
// server can do to pass a command's output on as progress notifications. It answers `initialize`,
// and on `tools/call` runs `sh gen.sh` with its stdout on a FIFO, reads it into one reused buffer
// and writes each read as a notification straight from that buffer (a JSON line's start, the
// bytes, its end, in one writev), reading again only once the write is done. No checks, no
// escaping (the bench output is all 'x'), no copies, no journal, no result to build: not a server
// anyone should run, only a measure of what the pipes, the processes and Node's streams cost here.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const out = process.stdout;
const reply = (id) => out.write(`{"result":{"content":[]},"jsonrpc":"2.0","id":${id}}\n`);

function run(id) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-relay-'));
  const fifo = path.join(dir, 'out');
  spawnSync('mkfifo', [fifo]);
  const readFd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeFd = openSync(fifo, constants.O_WRONLY);
  rmSync(dir, { recursive: true });
  spawn('sh', ['gen.sh'], { stdio: ['ignore', writeFd, 'ignore'] });
  closeSync(writeFd);
  const end = Buffer.from('"}}\n');
  let progress = 0;
  const pipe = new Socket({
    fd: readFd,
    readable: true,
    writable: false,
    onread: {
      buffer: Buffer.allocUnsafe(64 * 1024),
      callback: (n, buffer) => {
        const start = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":${++progress},"message":"`;
        let done = false;
        out.cork();
        out.write(start, 'latin1');
        out.write(buffer.subarray(0, n));
        out.write(end, () => {
          done = true;
          pipe.resume();
        });
        out.uncork();
        // The buffer is read into again only once the kernel has its bytes.
        if (!done) pipe.pause();
      },
    },
  });
  pipe.on('end', () => reply(id));
  pipe.resume();
}

let pending = '';
process.stdin.on('data', (chunk) => {
  pending += chunk.toString('utf8');
  for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
    const message = JSON.parse(pending.slice(0, at));
    pending = pending.slice(at + 1);
    if (message.method === 'initialize') reply(message.id);
    else if (message.method === 'tools/call') run(message.id);
  }
});
