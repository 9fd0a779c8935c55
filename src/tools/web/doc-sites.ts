import type { parseHTML } from 'linkedom';

type Dom = ReturnType<typeof parseHTML>['document'];
type DomElement = ReturnType<Dom['querySelectorAll']>[number];

/**
 * Documentation generators whose pages say where their content is: the page's text is that
 * container, found with one selector, instead of Readability scoring every element (5× the parse
 * on a 1 MB page). Each selector names the generator's own structure, so an ordinary article
 * (a blog, a news story) never matches and still goes to Readability. `chrome` is what the
 * generator puts inside the container that is not content.
 */
const SITES: readonly { generator: string; container: string; chrome?: string }[] = [
  {
    generator: 'rustdoc',
    container: 'body.rustdoc #main-content',
    // "1.0.0 · source · [−]", the Run links, "Copy item path", "Expand description", notable-trait tooltips
    chrome: '.out-of-band, .rightside, a.test-arrow, #copy-path, summary.hideme, .notable-traits, .tooltip',
  },
  { generator: 'mdBook', container: '#page-wrapper #content > main' },
  {
    generator: 'Sphinx',
    container: 'div.body[role="main"], .rst-content [role="main"], article#furo-main-content',
    chrome: 'a.headerlink',
  },
];

/** The content container of a page made by a known documentation generator, its chrome removed. */
export function docContainer(document: Dom): DomElement | undefined {
  for (const site of SITES) {
    const root = document.querySelector(site.container) ?? undefined;
    if (!root) continue;
    if (site.chrome) for (const node of root.querySelectorAll(site.chrome)) node.remove();
    return root;
  }
  return undefined;
}
