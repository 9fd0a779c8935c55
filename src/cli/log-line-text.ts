/** Fields a person at a terminal does not need on every line; files and pipes keep them. */
const LEFT_OUT = new Set(['service', 'event']);
/** Long ids go last, so the line starts with what happened. */
const LAST = ['session', 'batch_id', 'trace_id', 'span_id'];

/**
 * One log line for a person at a terminal (issue #31 §3): `time LEVEL message key=value ...`, no
 * JSON. Values are the log's own (ids, names, rules, numbers), but a call id is the model's text:
 * anything beyond plain printable ASCII is quoted with escapes, so no line can drive the terminal.
 */
export function logLineText(level: string, fields: object, message: string | undefined, time: Date): string {
  const entries = Object.entries(fields).filter(([key, value]) => !LEFT_OUT.has(key) && value !== undefined);
  const ordered = [
    ...entries.filter(([key]) => !LAST.includes(key)),
    ...LAST.flatMap((key) => entries.filter(([k]) => k === key)),
  ];
  const pairs = ordered.map(([key, value]) => `${safe(key)}=${shown(value)}`);
  const head = `${clock(time)} ${level.toUpperCase().padEnd(5)} ${safe(message ?? String((fields as { event?: unknown }).event ?? ''))}`;
  return `${[head, ...pairs].join(' ')}\n`;
}

function clock(time: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(time.getHours())}:${two(time.getMinutes())}:${two(time.getSeconds())}`;
}

function shown(value: unknown): string {
  if (typeof value === 'string') return safe(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return escaped(JSON.stringify(value) ?? String(value));
}

/** Bare when it is plain printable ASCII without quotes or `=`; else a JSON string with escapes. */
function safe(text: string): string {
  return /^[!#-<>-~]+$/.test(text) ? text : escaped(JSON.stringify(text));
}

/** JSON escapes C0 controls; C1 controls, line separators and bidi marks are escaped here too. */
function escaped(json: string): string {
  return json.replace(
    /[\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
