/** One simple command as it would run, after wrappers (`bash -c`, `env`, `sudo`, …) are looked through. */
export interface SimpleCommand {
  /** Words; a word whose value is only known at run time (`$HOME`, `$(…)`) is undefined. */
  argv: (string | undefined)[];
  /** The command as text, for approval summaries and condition rules. */
  text: string;
  /**
   * A shell given a script file (`sh build.sh`): where the file is in argv. Its commands were never
   * read, so only an allow rule that names the file (`allow = ["sh build.sh"]`) covers it.
   */
  runsFile?: number;
  /** Files it reads through `<` (undefined: known only at run time): checked like its arguments. */
  inputs?: (string | undefined)[];
  /**
   * Why it cannot run without asking whatever the allow rules say (found by the planner: arguments
   * outside the roots or only known at run time, a repository's git config that runs programs).
   */
  problems?: string[];
  /**
   * Why it is refused whatever a person would answer (found by the planner: a git history read of a
   * denied path or a vault). Policy denies a line with any sub-command that has one.
   */
  refusals?: string[];
}

/** What policy needs to know about a shell command line (from the parsed command, not the string). */
export interface CommandFacts {
  commands: SimpleCommand[];
  /** Constructs that never auto-allow: substitutions, redirections to files, eval, parse failures … */
  risks: string[];
  /**
   * The line as toolgate rebuilt it from the tree it judged (every word a single-quoted literal,
   * operators from a fixed set, here-document bodies as data): what runs when nobody approved the
   * call. Present only when there are no risks; a line that cannot be rebuilt has a risk instead.
   */
  rebuilt?: string;
}
