/**
 * A name holding a line break (Linux allows any byte but `/` and NUL): glob and grep answer a
 * path a line, so such a name would read as two paths, or forge a `path:line: text` line. Both
 * leave those names out, on every engine.
 */
export const LINE_BREAK_IN_NAME = /[\n\r\u2028\u2029]/;
