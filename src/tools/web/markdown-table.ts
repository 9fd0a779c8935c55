import { type HtmlElement, isElement } from './html-node.js';

/** A table's own rows (not those of a table inside a cell), in order, with their cells. */
export function tableRows(table: HtmlElement): HtmlElement[][] {
  const rows: HtmlElement[][] = [];
  const addRow = (tr: HtmlElement) => {
    const cells: HtmlElement[] = [];
    for (let c = tr.firstChild; c; c = c.nextSibling)
      if (isElement(c) && (c.localName === 'td' || c.localName === 'th')) cells.push(c);
    if (cells.length > 0) rows.push(cells);
  };
  for (let part = table.firstChild; part; part = part.nextSibling) {
    if (!isElement(part)) continue;
    if (part.localName === 'tr') addRow(part);
    else if (part.localName === 'thead' || part.localName === 'tbody' || part.localName === 'tfoot')
      for (let tr = part.firstChild; tr; tr = tr.nextSibling)
        if (isElement(tr) && tr.localName === 'tr') addRow(tr);
  }
  return rows;
}

/**
 * Rows of cell texts as a GFM pipe table: the first row is the header (GFM needs one), every row
 * as wide as the widest, `|` inside a cell escaped. A cell spanning columns fills them with blanks.
 */
export function pipeTable(rows: readonly string[][]): string {
  const width = Math.max(...rows.map((r) => r.length));
  const line = (cells: readonly string[]) => {
    const padded = [...cells];
    while (padded.length < width) padded.push('');
    return `| ${padded.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  };
  const [head = [], ...body] = rows;
  return [line(head), `| ${Array(width).fill('---').join(' | ')} |`, ...body.map(line)].join('\n');
}
