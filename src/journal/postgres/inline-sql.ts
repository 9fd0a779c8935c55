/**
 * A statement with its `$n` parameters written in as SQL literals, so several statements can go to
 * PostgreSQL as one simple query: one round trip, run as one implicit transaction (all or
 * nothing). The literals are built as libpq's PQescapeLiteral builds them: a string in E'…' with
 * every quote and backslash doubled (right whatever standard_conforming_strings says), a number
 * only when finite (a negative one in parentheses), arrays only of numbers. Anything else is
 * refused, never guessed at.
 */
export function inlineStatement(text: string, values: readonly unknown[] = []): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const index = Number(n) - 1;
    if (index < 0 || index >= values.length) throw new Error(`statement has no value for $${n}`);
    return literal(values[index]);
  });
}

export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`a number that is not finite (${value}) cannot be stored`);
    // In parentheses: `1-$1` with -7 must not become `1--7` (the start of a comment).
    return value < 0 ? `(${String(value)})` : String(Object.is(value, -0) ? 0 : value);
  }
  if (typeof value === 'string') {
    // PostgreSQL text cannot hold NUL: it is kept as U+FFFD (JSON text never holds one raw: it is
    // escaped as \u0000, so arguments and results are stored exactly).
    return `E'${value.replace(/\0/g, '\uFFFD').replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  }
  if (Array.isArray(value)) {
    // Array literal text ('{1,2,3}'), cast by the statement ($1::bigint[]): numbers only.
    return `'{${value.map((v) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : fail(v))).join(',')}}'`;
  }
  return fail(value);
}

function fail(value: unknown): never {
  throw new Error(`a value of type ${typeof value} cannot be written into a statement`);
}
