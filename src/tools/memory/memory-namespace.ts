import os from 'node:os';

/**
 * The namespace of one user's memory in one project: both names, as a JSON pair so that no choice
 * of names can make two namespaces one ("a/b" + "c" vs "a" + "b/c"). The user is who `--user` or
 * `[tools.memory] user` names, else the login name of the process. One namespace never sees
 * another's entries (every query of the store is by namespace).
 */
export function memoryNamespace(project: string, user: string | undefined): string {
  return JSON.stringify([project, user ?? loginName()]);
}

function loginName(): string {
  try {
    return os.userInfo().username || 'default';
  } catch {
    return process.env.USER || process.env.LOGNAME || 'default'; // no passwd entry (some containers)
  }
}
