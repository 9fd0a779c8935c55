/**
 * "Always allow" from an approval, with an explicit scope (issue #5): `once` is just the approved
 * call (nothing stored); `session` lasts for the conversation; `project` for every session using
 * the same journal. A grant is as narrow as what was shown (issue #30 §5): a command grants its
 * sub-commands' prefixes (`git push`), a file change the files it changed (or a directory the
 * person picked), a fetch its origin, any other tool exactly the arguments approved.
 */
export type GrantScope = 'once' | 'session' | 'project';
export type RememberScope = Exclude<GrantScope, 'once'>;

/**
 * What an approval's "always" asks to remember (an `ApprovalDecision`'s `remember`): the scope,
 * and optionally, for a file change, a directory the person picked instead of the exact files,
 * root-relative as shown (`src`), containing every file the call changes. A directory that does
 * not contain them, or is outside the root, stores nothing (the person is asked again next time).
 */
export type RememberChoice = RememberScope | { scope: RememberScope; directory?: string };

/** What one grant covers; a call is allowed by grants only when its own coverage is inside them. */
export type GrantCoverage =
  /** Command tools: the whole-word prefix a sub-command must start with (e.g. ["git", "push"]). */
  | { kind: 'command'; prefix: string[] }
  /** File changes: exactly these files (absolute, resolved); `shown` root-relative, as approved. */
  | { kind: 'paths'; paths: string[]; shown: string[] }
  /** File changes anywhere under this directory (absolute, resolved); `shown` root-relative. */
  | { kind: 'directory'; directory: string; shown: string }
  /** web_fetch: URLs of this origin (scheme, ASCII/punycode host, port), e.g. https://docs.rs. */
  | { kind: 'origin'; origin: string }
  /** Any other tool: exactly these arguments (SHA-256 of their canonical JSON); `shown` the summary. */
  | { kind: 'arguments'; sha256: string; shown: string }
  /**
   * A row written before issue #30, when a grant covered every call of its tool: kept so that
   * `toolgate grants list` shows it and `revoke` removes it, but it allows nothing (fail closed).
   */
  | { kind: 'tool_wide_legacy' };

/** What "always" would cover for a call waiting for approval, or why it is not offered. */
export type GrantOffer = { covers: GrantCoverage[] } | { refused: string };

export interface Grant {
  /** Its id in the store (`toolgate grants revoke ID`); absent until it is stored. */
  id?: number;
  tool: string;
  covers: GrantCoverage;
  scope: RememberScope;
  /** The session a `session` grant belongs to. */
  session?: string;
  createdAt: number;
}

/** Where grants live: in memory per pipeline, or in the journal. */
export interface GrantStore {
  /** The grants in force for a session: its own and every project-wide one. */
  list(session: string): Grant[];
  add(grant: Grant): void;
}

export class MemoryGrantStore implements GrantStore {
  readonly #grants: Grant[] = [];
  #nextId = 1;

  list(session: string): Grant[] {
    return this.#grants.filter((g) => g.scope === 'project' || g.session === session);
  }

  add(grant: Grant): void {
    this.#grants.push({ ...grant, id: this.#nextId++ });
  }

  /** Every grant, oldest first. */
  all(): Grant[] {
    return [...this.#grants];
  }

  /** Removes one grant; false when there is none with that id. */
  revoke(id: number): boolean {
    const at = this.#grants.findIndex((g) => g.id === id);
    if (at < 0) return false;
    this.#grants.splice(at, 1);
    return true;
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
