import picomatch from 'picomatch';

/**
 * Compiled forms of the config's globs and regular expressions, made once each: the patterns
 * come from the config (a finite set), while decisions are made for every call.
 */
export class PatternCache {
  readonly #globs = new Map<string, (subject: string) => boolean>();
  readonly #regexes = new Map<string, RegExp>();

  /** A path glob (`dot: true`: hidden files are matched like any other). */
  glob(pattern: string): (subject: string) => boolean {
    let test = this.#globs.get(pattern);
    if (!test) {
      test = picomatch(pattern, { dot: true });
      this.#globs.set(pattern, test);
    }
    return test;
  }

  regex(pattern: string): RegExp {
    let re = this.#regexes.get(pattern);
    if (!re) {
      re = new RegExp(pattern, 'u');
      this.#regexes.set(pattern, re);
    }
    return re;
  }
}
