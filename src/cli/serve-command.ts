import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { serve } from '@hono/node-server';
import { createConsoleApp } from '../console/console-app.js';
import { checkRequestOrigin, isLoopback, parseListen } from './http-guard.js';
import { listenError } from './listen-error.js';
import { openProjectGate } from './mode-command.js';
import { refuseOtherUser } from './peer-owner.js';
import { UsageError } from './usage-error.js';

export interface ServeOptions {
  root?: string[];
  config?: string;
  journal?: string;
  http?: string;
}

/**
 * `toolgate serve [--http HOST:PORT]` (issue #17 §4): the web console on 127.0.0.1 unless told
 * otherwise; any other address needs TOOLGATE_CONSOLE_TOKEN, or it refuses to start. On loopback
 * without one, a token is made for this run and printed in the address to open. Serves until
 * asked to stop.
 */
export async function runServe(options: ServeOptions, out: NodeJS.WritableStream): Promise<number> {
  const { host, port } = parseListen(options.http ?? '127.0.0.1:7480');
  const given = process.env.TOOLGATE_CONSOLE_TOKEN || undefined;
  const loopback = isLoopback(host);
  if (given !== undefined && given.length < 16)
    throw new UsageError('TOOLGATE_CONSOLE_TOKEN must have 16 characters or more');
  if (!loopback && given === undefined)
    throw new UsageError(
      `refusing to serve the console on ${host} without a token: set TOOLGATE_CONSOLE_TOKEN (16 characters or more), or listen on 127.0.0.1`,
    );
  // Always a token, on loopback too: another user of this machine can reach 127.0.0.1, and an
  // answer here can let a command run. Without one given, a new one is made and printed once.
  const token = given ?? randomBytes(24).toString('hex');
  // The mode as every process on the journal sees it (the config's, unless one was set at run time).
  const { gate, journal } = openProjectGate(options);
  let bound = port;
  const { app, oneTimeCode } = createConsoleApp({
    journal,
    mode: () => {
      const now = gate.governanceMode();
      return { mode: now.mode, ...(now.record ? { record: now.record } : {}) };
    },
    checkOrigin: (headers) => checkRequestOrigin(headers, loopback, bound),
    // Another OS user of this machine reaches 127.0.0.1 too: refused where the OS tells (Linux).
    checkPeer: refuseOtherUser,
    token,
    answeredVia: `console@${os.hostname()}`,
    ownerName: os.userInfo().username,
  });
  const server = serve({ fetch: app.fetch, hostname: host, port });
  // The verdict is taken while the client's socket surely exists (peer-owner.ts), then per request.
  server.on('connection', (socket) => refuseOtherUser(socket));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (error) {
    await gate.close();
    journal.close();
    throw listenError(error, host, port);
  }
  const address = server.address();
  bound = typeof address === 'object' && address ? address.port : port;
  const shown = host.includes(':') ? `[${host}]` : host;
  const base = `http://${shown}:${bound}`;
  // The token is never put in an address (it would stay in the browser's history): a code that
  // signs in once, or the sign-in form.
  out.write(
    `toolgate console on ${base}/ (journal ${journal.location})\nopen ${base}/login?code=${oneTimeCode()} (signs in once), or sign in at ${base}/login with ${given ? 'TOOLGATE_CONSOLE_TOKEN' : `the token ${token}`}\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await gate.close();
  journal.close();
  return 0;
}
