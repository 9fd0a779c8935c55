import { ToolError } from '../../core/tool-error.js';

/** How a text file stores its lines, so an edit can write back exactly that way. */
export interface TextFormat {
  bom: boolean;
  /** '\r\n' only when every line break in the file is CRLF; mixed files are left as they are. */
  eol: '\n' | '\r\n';
}

const BOM = '\uFEFF';
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes a file for editing: text with `\n` line breaks and no BOM, plus how to restore both. */
export function decodeText(bytes: Uint8Array, relative: string): { text: string; format: TextFormat } {
  let raw: string;
  try {
    raw = decoder.decode(bytes);
  } catch {
    throw new ToolError('BadArgs', `"${relative}" is not UTF-8 text; it cannot be edited as text`);
  }
  if (raw.includes('\0'))
    throw new ToolError('BadArgs', `"${relative}" is a binary file; it cannot be edited as text`);
  const bom = raw.startsWith(BOM);
  if (bom) raw = raw.slice(1);
  const crlf = (raw.match(/\r\n/g) ?? []).length;
  const lf = (raw.match(/\n/g) ?? []).length;
  const eol = crlf > 0 && crlf === lf ? '\r\n' : '\n';
  return { text: eol === '\r\n' ? raw.replaceAll('\r\n', '\n') : raw, format: { bom, eol } };
}

export function encodeText(text: string, format: TextFormat): Buffer {
  const body = format.eol === '\r\n' ? text.replaceAll('\r\n', '\n').replaceAll('\n', '\r\n') : text;
  return Buffer.from(format.bom ? BOM + body : body, 'utf8');
}

/** Model-sent text always matches with `\n` line breaks. */
export function normalizeNewlines(text: string): string {
  return text.replaceAll('\r\n', '\n');
}
