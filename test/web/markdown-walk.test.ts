import { describe, expect, it } from 'vitest';
import { pageToText } from '../../src/tools/web/page-to-text.js';

/** The Markdown walk (dom-to-markdown.ts) on the element a selector picks: no Readability in between. */
const md = (body: string) =>
  pageToText(
    `<html><body><div id="x">${body}</div></body></html>`,
    'https://site.example/a/b.html',
    'markdown',
    '#x',
  ).text;

describe('web_fetch Markdown: one walk of the DOM (issue #33)', () => {
  it('text that looks like Markdown is escaped; code, inline or fenced, is not', () => {
    expect(md('<p>a * b _c_ snake_case [d] 1. e<br>- f<br># g<br>1. h</p>')).toBe(
      'a \\* b \\_c\\_ snake_case \\[d\\] 1. e  \n\\- f  \n\\# g  \n1\\. h',
    );
    expect(
      md('<p>run <code>a_b * [c]</code> and <kbd>Ctrl-C</kbd>, <samp>x`y</samp>, <tt>``z``</tt></p>'),
    ).toBe('run `a_b * [c]` and `Ctrl-C`, ``x`y``, ``` ``z`` ```');
    expect(md('<pre>&gt;&gt;&gt; bin(-10)\n# not a heading\n- not a list\n</pre>')).toBe(
      '```\n>>> bin(-10)\n# not a heading\n- not a list\n```',
    );
  });

  it('every <pre> is fenced, with or without <code>, its fence longer than any backtick run inside', () => {
    expect(md('<pre class="language-js"><code>let a = "```";</code></pre>')).toBe(
      '````js\nlet a = "```";\n````',
    );
    expect(md('<pre data-lang="toml">[x]\ny = 1</pre>')).toBe('```toml\n[x]\ny = 1\n```');
    expect(
      md('<div class="highlight-pycon3"><div class="highlight"><pre>&gt;&gt;&gt; 1</pre></div></div>'),
    ).toBe('```pycon\n>>> 1\n```');
    // a language name that could break the fence line is not one
    expect(md('<pre><code class="language-x`y">z</code></pre>')).toBe('```\nz\n```');
  });

  it('lists (nested ones tight under their item, numbering from start), quotes, tables with a spanning cell', () => {
    expect(md('<ol start="3"><li>three<ul><li>a</li><li>b</li></ul></li><li>four</li></ol>')).toBe(
      '3. three\n   - a\n   - b\n4. four',
    );
    expect(md('<blockquote><p>quoted</p><ul><li>q</li></ul></blockquote>')).toBe('> quoted\n>\n> - q');
    expect(
      md(
        '<table><tr><th>A</th><th>B</th></tr><tr><td colspan="2">both | one</td></tr><tr><td>1</td></tr></table>',
      ),
    ).toBe('| A | B |\n| --- | --- |\n| both \\| one |  |\n| 1 |  |');
  });

  it('links and images absolute; permalinks and a heading linking to itself add nothing; scripts and buttons are no text', () => {
    expect(
      md(
        '<h2 id="s"><a href="#s">Section</a><a class="headerlink" href="#s">¶</a></h2><p><a href="../c (1).html">c</a> <img src="i.png" alt="[pic]"><script>x()</script><button>Copy</button></p>',
      ),
    ).toBe(
      '## Section\n\n[c](https://site.example/c%20%281%29.html) ![\\[pic\\]](https://site.example/a/i.png)',
    );
  });
});
