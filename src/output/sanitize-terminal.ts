/**
 * Makes untrusted text safe to print on a terminal (seed 000 FR-OUT-02, DESIGN §4):
 * removes CSI, OSC (incl. OSC 52 clipboard writes), DCS/SOS/PM/APC strings, other ESC sequences,
 * C0 controls except newline and tab, DEL, C1 controls, lone carriage returns and bidi overrides.
 */
// ESC-introduced strings end at BEL or ST (ESC \ or U+009C); an unterminated one runs to the end.
const ESC_STRING = /\u001b[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|\u009c|$)/g;
const C1_STRING = /[\u0090\u0098\u009d\u009e\u009f][\s\S]*?(?:\u0007|\u001b\\|\u009c|$)/g;
const CSI = /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?/g;
const ESC_OTHER = /\u001b[\u0020-\u002f]*[\u0030-\u007e]?/g;
const CRLF = /\r\n/g;
// C0 except \t and \n; DEL; C1; bidi embeddings/overrides/isolates; LRM/RLM/ALM.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

// Anything that could start a sequence or is removed below; text without any is already clean.
const NEEDS_WORK = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;

export function sanitizeForTerminal(text: string): string {
  if (!NEEDS_WORK.test(text)) return text;
  return text
    .replace(ESC_STRING, '')
    .replace(C1_STRING, '')
    .replace(CSI, '')
    .replace(ESC_OTHER, '')
    .replace(CRLF, '\n')
    .replace(CONTROLS, '');
}
