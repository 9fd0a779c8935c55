import { UsageError } from './usage-error.js';

/**
 * Why a listening command could not listen, as the one line a person can act on (exit 2, no stack
 * trace): a busy port, an address that is not this machine's, a port the user may not open.
 * Anything else is left as it is.
 */
export function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const shown = host.includes(':') ? `[${host}]` : host;
  if (code === 'EADDRINUSE')
    return new UsageError(
      `port ${port} on ${host} is in use by another program; pick another with --http ${shown}:PORT`,
    );
  if (code === 'EACCES')
    return new UsageError(
      `not allowed to listen on port ${port} on ${host} (EACCES: ports below 1024 need privileges); pick another with --http ${shown}:PORT`,
    );
  if (code === 'EADDRNOTAVAIL')
    return new UsageError(
      `cannot listen on ${host}: no network interface of this machine has that address (EADDRNOTAVAIL); pick another with --http HOST:${port}`,
    );
  return error;
}
