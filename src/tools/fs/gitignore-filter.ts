import ignore, { type Ignore } from 'ignore';
import { readSmallFile } from './gitignore-rules.js';

/**
 * Answers "is this path ignored by git?" for paths under one root, honouring every .gitignore from
 * the root down (nested files are relative to their own directory) and ignored parent directories.
 * .gitignore files are loaded lazily, once each, without following links.
 */
export class GitignoreFilter {
  readonly #root: string;
  readonly #rules = new Map<string, Promise<Ignore | undefined>>();
  readonly #dirIgnored = new Map<string, Promise<boolean>>();

  constructor(root: string) {
    this.#root = root;
  }

  #rulesFor(dir: string): Promise<Ignore | undefined> {
    let rules = this.#rules.get(dir);
    if (!rules) {
      rules = readSmallFile(`${this.#root}${dir ? `/${dir}` : ''}/.gitignore`).then((text) =>
        text === undefined ? undefined : ignore().add(text),
      );
      this.#rules.set(dir, rules);
    }
    return rules;
  }

  /** Whether `parts` (a path under the root) is matched by a .gitignore of one of its ancestors. */
  async #matched(parts: readonly string[], isDirectory: boolean): Promise<boolean> {
    for (let i = 0; i < parts.length; i++) {
      const rules = await this.#rulesFor(parts.slice(0, i).join('/'));
      if (!rules) continue;
      const rest = parts.slice(i).join('/');
      if (rules.ignores(isDirectory ? `${rest}/` : rest)) return true;
    }
    return false;
  }

  #directoryIgnored(parts: readonly string[]): Promise<boolean> {
    const key = parts.join('/');
    let result = this.#dirIgnored.get(key);
    if (!result) {
      result = (async () => {
        if (parts.length === 0) return false;
        if (await this.#directoryIgnored(parts.slice(0, -1))) return true;
        return this.#matched(parts, true);
      })();
      this.#dirIgnored.set(key, result);
    }
    return result;
  }

  async ignores(relative: string, isDirectory = false): Promise<boolean> {
    const parts = relative.split('/').filter(Boolean);
    if (parts.length === 0) return false;
    if (await this.#directoryIgnored(parts.slice(0, -1))) return true;
    return isDirectory ? this.#directoryIgnored(parts) : this.#matched(parts, false);
  }
}
