import { readFileSync } from 'node:fs';
import path from 'node:path';

/** One `key = value` of a git config file; section and key lower-cased as git compares them. */
export interface ConfigFileEntry {
  section: string;
  /** Case-sensitive, as in git; undefined for `[section]`. */
  subsection: string | undefined;
  key: string;
  value: string;
}

/** git's own limit on nested includes. */
const MAX_INCLUDE_DEPTH = 10;
/** Larger files are read only up to here: a config file that big is not one git reads quickly either. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * The entries of one config file text. Deliberately generous where git's syntax has corners: every
 * section header `[s "sub"]` or `[s.sub]` and every key under it counts, a deprecated `[s.sub]`
 * gives its subsection both as written and lower-cased (git lower-cases it). An extra name only
 * switches off one more driver; a missed one would leave a program running.
 */
export function parseConfigText(text: string): ConfigFileEntry[] {
  const entries: ConfigFileEntry[] = [];
  const lines = text.split(/\r?\n/);
  let section = '';
  let subsections: (string | undefined)[] = [undefined];
  for (let i = 0; i < lines.length; i++) {
    let line = (lines[i] as string).replace(/^\uFEFF/, '');
    const header = /^\s*\[/.exec(line);
    if (header) {
      const parsed = parseHeader(line.slice(header[0].length));
      if (!parsed) continue;
      section = parsed.section;
      subsections = parsed.subsections;
      line = parsed.rest;
    }
    const keyMatch = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(=)?/.exec(line);
    if (!keyMatch || section === '') continue;
    let raw = keyMatch[2] ? line.slice(keyMatch[0].length) : '';
    // A value ending in a backslash continues on the next line.
    while (/(^|[^\\])(\\\\)*\\$/.test(raw) && i + 1 < lines.length) raw = raw.slice(0, -1) + lines[++i];
    const value = keyMatch[2] ? parseValue(raw) : 'true';
    const key = (keyMatch[1] as string).toLowerCase();
    for (const subsection of subsections) entries.push({ section, subsection, key, value });
  }
  return entries;
}

function parseHeader(
  text: string,
): { section: string; subsections: (string | undefined)[]; rest: string } | undefined {
  const name = /^\s*([A-Za-z0-9.-]+)/.exec(text);
  if (!name) return undefined;
  let at = name[0].length;
  const dotted = (name[1] as string).split('.');
  const section = (dotted[0] as string).toLowerCase();
  const subsections: (string | undefined)[] = [];
  if (dotted.length > 1) {
    const sub = dotted.slice(1).join('.');
    subsections.push(sub, sub.toLowerCase());
  }
  const quoted = /^\s*"/.exec(text.slice(at));
  if (quoted) {
    at += quoted[0].length;
    let sub = '';
    while (at < text.length && text[at] !== '"') {
      if (text[at] === '\\' && at + 1 < text.length) at++;
      sub += text[at];
      at++;
    }
    subsections.push(sub);
    at++;
  }
  const close = text.indexOf(']', at);
  if (close < 0) return undefined;
  return {
    section,
    subsections: subsections.length ? subsections : [undefined],
    rest: text.slice(close + 1),
  };
}

/** A raw value as git reads it: quotes removed, escapes resolved, an unquoted `#`/`;` ends it. */
function parseValue(raw: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (c === '"') quoted = !quoted;
    else if (c === '\\' && i + 1 < raw.length) {
      const next = raw[++i] as string;
      out += next === 'n' ? '\n' : next === 't' ? '\t' : next === 'b' ? '\b' : next;
    } else if (!quoted && (c === '#' || c === ';')) break;
    else out += c;
  }
  return out.trim();
}

/** Where an include's `path` points, as git resolves it (undefined when it cannot be named). */
function includeTarget(value: string, from: string, home: string | undefined): string | undefined {
  const v = value.replace(/^:\(optional\)/, '');
  if (v === '' || v.startsWith('%(prefix)')) return undefined;
  if (v === '~' || v.startsWith('~/')) return home ? path.join(home, v.slice(1)) : undefined;
  return path.resolve(path.dirname(from), v);
}

/**
 * Every entry of `files` and of every file they include, each include followed WHATEVER its
 * condition (`includeIf "onbranch:…"` may hold after a checkout in the same command), up to git's
 * depth. `read` records each file looked at (missing ones too), for the caller's cache.
 */
export function readConfigFiles(
  files: readonly string[],
  home: string | undefined,
  read: (file: string) => void,
): ConfigFileEntry[] {
  const entries: ConfigFileEntry[] = [];
  const seen = new Set<string>();
  const visit = (file: string, depth: number) => {
    if (seen.has(file) || depth > MAX_INCLUDE_DEPTH) return;
    seen.add(file);
    read(file);
    let text: string;
    try {
      text = readFileSync(file).subarray(0, MAX_FILE_BYTES).toString('utf8');
    } catch {
      return; // missing or unreadable: git reads nothing there either
    }
    for (const entry of parseConfigText(text)) {
      entries.push(entry);
      if (entry.key === 'path' && (entry.section === 'include' || entry.section === 'includeif')) {
        const target = includeTarget(entry.value, file, home);
        if (target) visit(target, depth + 1);
      }
    }
  };
  for (const file of files) visit(file, 0);
  return entries;
}
