/**
 * The few DOM members the Markdown converter reads, declared structurally: linkedom's nodes have
 * them (and the project compiles without the DOM library).
 */
export interface HtmlNode {
  readonly nodeType: number;
  readonly firstChild: HtmlNode | null;
  readonly nextSibling: HtmlNode | null;
  readonly textContent: string | null;
}

export interface HtmlElement extends HtmlNode {
  readonly localName: string;
  readonly parentElement: HtmlElement | null;
  getAttribute(name: string): string | null;
}

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;

export const isElement = (node: HtmlNode): node is HtmlElement => node.nodeType === ELEMENT_NODE;

/** Whether the element's class attribute holds `name` as one of its words. */
export function hasClass(element: HtmlElement, name: string): boolean {
  const value = element.getAttribute('class');
  if (value === null) return false;
  const at = value.indexOf(name);
  if (at < 0) return false;
  return value.split(/\s+/).includes(name);
}
