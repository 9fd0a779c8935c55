import path from 'node:path';
import { StagingFiles } from '../journal/staging-files.js';
import { memoryFileLocation } from '../tools/memory/memory-file.js';
import { canonicalOrNot } from './sandbox.js';

/** What a gate's tools may never touch because it is toolgate's own state, or a vault. */
export interface OwnStateDenies {
  /** Files denied to every tool: the journal and its SQLite side files, the config, the memory store. */
  deniedFiles: string[];
  /** Folders that are toolgate's own (the journal's staging files). */
  ownDirs: string[];
  /** Vault roots: read by vault_copyto alone, through its own sandbox; denied to every other tool. */
  vaults: string[];
  /** Where relative vault roots resolve: the config file's directory, else the base directory. */
  vaultBase: string;
}

/**
 * The journal file (and its WAL/SHM companions, its staging files), the config file and the memory
 * store, wherever `[tools.memory] file` puts it (the default is under .toolgate/), are toolgate's
 * own state: never a tool's. Relative vault roots are the config file's business: they resolve
 * against its directory.
 */
export function ownStateDenies(options: {
  baseDir: string;
  /** Denied files the caller names itself. */
  deniedFiles?: readonly string[] | undefined;
  journalFile?: string | undefined;
  configFile?: string | undefined;
  roots: readonly string[];
  memoryFile: string;
  vaultRoots: readonly string[];
}): OwnStateDenies {
  const { baseDir } = options;
  const deniedFiles = [...(options.deniedFiles ?? [])];
  const ownDirs: string[] = [];
  if (options.journalFile) {
    const file = path.resolve(baseDir, options.journalFile);
    deniedFiles.push(file, `${file}-wal`, `${file}-shm`, `${file}-journal`);
    ownDirs.push(StagingFiles.dirFor(file));
  }
  if (options.configFile) deniedFiles.push(path.resolve(baseDir, options.configFile));
  const firstRoot = canonicalOrNot(path.resolve(baseDir, options.roots[0] ?? '.'));
  const memoryFile = memoryFileLocation(options.memoryFile, firstRoot);
  if (memoryFile)
    deniedFiles.push(memoryFile, `${memoryFile}-wal`, `${memoryFile}-shm`, `${memoryFile}-journal`);
  const vaultBase = options.configFile ? path.dirname(path.resolve(baseDir, options.configFile)) : baseDir;
  const vaults = options.vaultRoots.map((root) => path.resolve(vaultBase, root));
  return { deniedFiles, ownDirs, vaults, vaultBase };
}
