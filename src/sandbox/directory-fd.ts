import { closeSync, fsync } from 'node:fs';

/** fsync(2) of a descriptor, in the thread pool. */
export function fsyncDescriptor(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
}

/** An open directory descriptor: lookups through it start at that inode, whatever its name points to now. */
export class DirectoryFd {
  #fd: number | undefined;

  constructor(fd: number) {
    this.#fd = fd;
  }

  get fd(): number {
    if (this.#fd === undefined) throw new Error('the directory descriptor is closed');
    return this.#fd;
  }

  /** Flushes the directory's entries (a new or renamed name) to disk, in the thread pool. */
  sync(): Promise<void> {
    return fsyncDescriptor(this.fd);
  }

  /** Hands the descriptor over (to PendingSyncs): closing it is the new owner's job. */
  release(): number {
    const fd = this.fd;
    this.#fd = undefined;
    return fd;
  }

  close(): void {
    if (this.#fd === undefined) return;
    const fd = this.#fd;
    this.#fd = undefined;
    closeSync(fd);
  }
}
