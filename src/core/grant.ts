/**
 * "Always allow" from an approval, with an explicit scope (issue #5): `once` is just the approved
 * call (nothing stored); `session` lasts for the conversation; `project` for every session using
 * the same journal. A grant is as narrow as what was approved: for a command, the command plus its
 * subcommand (`git push`), never the roots of a compound line.
 */
export type GrantScope = 'once' | 'session' | 'project';

export interface Grant {
  tool: string;
  /** For command tools: the whole-word prefix the grant allows (e.g. ["git", "push"]). */
  prefix?: string[];
  scope: Exclude<GrantScope, 'once'>;
  /** The session a `session` grant belongs to. */
  session?: string;
  createdAt: number;
}

/** Where grants live: in memory per pipeline, or in the journal (`JournalGrantStore`). */
export interface GrantStore {
  list(session: string): Grant[];
  add(grant: Grant): void;
}

export class MemoryGrantStore implements GrantStore {
  readonly #grants: Grant[] = [];

  list(session: string): Grant[] {
    return this.#grants.filter((g) => g.scope === 'project' || g.session === session);
  }

  add(grant: Grant): void {
    this.#grants.push(grant);
  }
}

/** Programs whose second word is a subcommand (`git push`, `npm test`, `docker run` …). */
const SUBCOMMAND_PROGRAMS = new Set([
  'git',
  'npm',
  'pnpm',
  'yarn',
  'npx',
  'cargo',
  'go',
  'docker',
  'podman',
  'kubectl',
  'helm',
  'pip',
  'pip3',
  'poetry',
  'uv',
  'apt',
  'apt-get',
  'brew',
  'gh',
  'systemctl',
  'make',
  'terraform',
  'dotnet',
  'mvn',
  'gradle',
]);

/**
 * The prefix a grant allows: for a program with subcommands, the program and its subcommand
 * (`git push`, whatever follows); for any other program, the exact command as approved. Never the
 * bare program, and nothing at all for a command with words only known at run time.
 */
export function grantPrefix(argv: readonly (string | undefined)[]): string[] | undefined {
  if (argv.some((w) => w === undefined) || argv.length === 0) return undefined;
  const words = argv as string[];
  const [program, sub] = words;
  if (program && SUBCOMMAND_PROGRAMS.has(program) && sub !== undefined && /^[A-Za-z][\w.-]*$/.test(sub)) {
    return [program, sub];
  }
  return [...words];
}
