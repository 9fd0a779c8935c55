import { closeSync, constants, openSync, readlinkSync } from 'node:fs';

/**
 * Whether the descriptor check of the file tools (DESIGN §4: an opened descriptor is checked,
 * through /proc/self/fd, to be the validated file inside a root) can run here. It needs Linux
 * with /proc mounted. Where it cannot, the file tools refuse to start (fail closed, issue #31 §4)
 * unless the person sets this variable, knowingly accepting symlink races.
 */
export const UNSAFE_NO_DESCRIPTOR_CHECK_ENV = 'TOOLGATE_UNSAFE_NO_DESCRIPTOR_CHECK';

/** What the check needs of the machine: asked of the real system, or given by a test. */
export interface DescriptorProbe {
  platform: NodeJS.Platform;
  /** True when an open descriptor's path can be read back through /proc/self/fd. */
  procFdReadable: () => boolean;
}

/** Opens `/` and reads its descriptor back: /proc present is not enough, it must answer right. */
function readsBackThroughProc(): boolean {
  let fd: number | undefined;
  try {
    fd = openSync('/', constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
    return readlinkSync(`/proc/self/fd/${fd}`) === '/';
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export const systemDescriptorProbe: DescriptorProbe = {
  platform: process.platform,
  procFdReadable: readsBackThroughProc,
};

/** True where the check runs: Linux, with /proc/self/fd answering. */
export function descriptorCheckWorks(probe: DescriptorProbe = systemDescriptorProbe): boolean {
  return probe.platform === 'linux' && probe.procFdReadable();
}

/** True when the person set the override to exactly "1" (anything else is not a knowing choice). */
export function descriptorCheckOverridden(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[UNSAFE_NO_DESCRIPTOR_CHECK_ENV] === '1';
}

/** Why the file tools will not start here, the fix first (hosts shorten what they show). */
export function descriptorCheckMissing(probe: DescriptorProbe): string {
  const where =
    probe.platform === 'linux'
      ? 'this Linux system has no readable /proc/self/fd (is /proc mounted?)'
      : `this platform (${probe.platform}) has no /proc/self/fd`;
  return (
    `toolgate's file tools need Linux with /proc mounted: run toolgate there, or set ` +
    `${UNSAFE_NO_DESCRIPTOR_CHECK_ENV}=1 to run them without the check, accepting that a symbolic ` +
    `link swapped in while a file is opened can lead a tool outside the allowed roots. Why: ` +
    `${where}, so toolgate cannot check that each file it opens is the one it validated ` +
    `(supported platforms: Linux; docs/SECURITY.md, "Platforms").`
  );
}

/** Thrown where file tools are set up on a machine the descriptor check cannot run on. */
export class DescriptorCheckUnavailable extends Error {
  override readonly name = 'DescriptorCheckUnavailable';
}

/**
 * Throws unless the descriptor check runs here or the person overrode it knowingly. Called where
 * file tools are set up, so toolgate refuses to start instead of skipping the check silently.
 */
export function requireDescriptorCheck(
  probe: DescriptorProbe = systemDescriptorProbe,
  env: NodeJS.ProcessEnv = process.env,
): void {
  if (descriptorCheckWorks(probe) || descriptorCheckOverridden(env)) return;
  throw new DescriptorCheckUnavailable(descriptorCheckMissing(probe));
}
