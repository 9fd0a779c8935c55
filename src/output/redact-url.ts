/**
 * Where a URL keeps secrets, and the URL shown without them (issue #30 §9): a password in the user
 * part, or a query parameter that is one (`?password=`, `?sslpassword=`, any case, percent-encoded
 * or not). Every URL a person or a model is shown goes through `redactUrl`.
 */

/** Query keys whose value is shown as it is: libpq's settings that name where and how, not who proves it. */
const SHOWN_KEYS = new Set([
  'host',
  'hostaddr',
  'port',
  'dbname',
  'user',
  'sslmode',
  'application_name',
  'connect_timeout',
  'target_session_attrs',
]);

/** Key names that hold a secret (libpq's password, sslpassword, passfile; a token, a secret). */
const SECRET_KEY = /pass|pwd|secret|token|credential/i;

/** A URL with a password in its user part, anywhere in a text (`scheme://user:pass@host`). */
const USERINFO_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/?#@]*:[^\s/?#]*@/i;

/** A `password=`-like setting anywhere in a text: a URL's query, or a libpq `key=value` string. */
const PASSWORD_SETTING = /(?:pass(?:word|wd)?|pwd)\s*=/i;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * What in `url` is a secret, said so a person can fix it, or undefined when nothing is. A URL that
 * does not parse is answered as one: what it holds cannot be told.
 */
export function secretInUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'a URL that cannot be parsed (so what it holds cannot be checked)';
  }
  if (parsed.password !== '' || USERINFO_PASSWORD.test(url))
    return 'a password in the user part (user:password@)';
  const raw = parsed.search.slice(1);
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = decoded(eq < 0 ? part : part.slice(0, eq));
    if (SECRET_KEY.test(key)) return `the query parameter "${key}"`;
  }
  if (PASSWORD_SETTING.test(decoded(raw))) return 'a password setting inside the query';
  return undefined;
}

/**
 * Whether a text (an environment variable's value) holds a URL with a password or a password
 * setting: credential-shaped, whatever the variable is called.
 */
export function holdsPassword(text: string): boolean {
  return USERINFO_PASSWORD.test(text) || PASSWORD_SETTING.test(text) || PASSWORD_SETTING.test(decoded(text));
}

/**
 * The URL as it may be printed: the password replaced by `***`, every query value but the few
 * that only say where (host, port, dbname, user, sslmode …) replaced too, the fragment dropped.
 * A URL that does not parse is not repeated at all.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
    return scheme ? `${scheme}://(unparsable URL)` : '(unparsable URL)';
  }
  if (parsed.password !== '') parsed.password = '***';
  const query = parsed.search
    .slice(1)
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const eq = part.indexOf('=');
      const key = eq < 0 ? part : part.slice(0, eq);
      return SHOWN_KEYS.has(decoded(key).toLowerCase()) && !PASSWORD_SETTING.test(decoded(part))
        ? part
        : `${key}=***`;
    });
  parsed.search = '';
  parsed.hash = '';
  return `${parsed.toString()}${query.length > 0 ? `?${query.join('&')}` : ''}`;
}
