import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolError } from '../../core/tool-error.js';
import { oneLine } from '../../output/one-line.js';
import type { FetchSettings } from './fetch-url.js';
import { detailUrl, summarizeUrl } from './shown-url.js';

export interface WebFetchSettings extends FetchSettings {
  /** The whole fetch, redirects and download included ([tools.web] timeout_seconds). */
  timeoutMs: number;
}

const args = z.strictObject({
  url: z.string().min(1).describe('The http:// or https:// URL to fetch.'),
  selector: z
    .string()
    .min(1)
    .optional()
    .describe('CSS selector: only the matching elements of an HTML page (default: the main article).'),
  format: z
    .enum(['markdown', 'text', 'html'])
    .default('markdown')
    .describe('How an HTML page is returned: readable Markdown (default), plain text, or the HTML itself.'),
  max_length: z
    .number()
    .int()
    .min(100)
    .max(10_000_000)
    .optional()
    .describe('Most characters of page text to return (the output limit applies as well).'),
});

const HTML = /^(text\/html|application\/xhtml\+xml)\b/i;
const PASS =
  /^(text\/|application\/(json|ld\+json|xml|javascript)\b|application\/[a-z0-9.+-]+\+(json|xml)\b)/i;

/**
 * web_fetch (issue #15; seed 001 §Web Tools): GET one page and return it as readable text. Network
 * tier: asks by default, never reaches a private or special address (fetch-url.ts), downloads at
 * most `maxDownloadBytes`. undici, linkedom and Readability are loaded on first use only.
 */
export function createWebFetchTool(settings: WebFetchSettings) {
  return defineTool({
    name: 'web_fetch',
    description:
      'Fetch a web page (http/https) and return its main content as Markdown (or text, or HTML); JSON and plain text pass through. Private and local addresses are refused.',
    args,
    tier: 'network',
    category: 'network',
    timeoutMs: settings.timeoutMs,
    // The URL as requested: its host in ASCII, a look-alike named (issue #30 §3).
    summary: (a) => summarizeUrl('Fetch', a.url, a.selector ? ` (selector ${a.selector})` : ''),
    approvalDetail: (a) => detailUrl(a.url),
    async execute(a, ctx) {
      const [{ fetchUrl }, { convertPage, MAX_HTML_CHARS }] = await Promise.all([
        import('./fetch-url.js'),
        import('./convert-page.js'),
      ]);
      const page = await fetchUrl(a.url, settings, ctx.signal);
      if (page.redirectedTo) {
        // Another origin: not followed here. The model calls again, and that URL is judged (policy,
        // approval, host lists) on its own: an allowed host's open redirect opens nothing else.
        const to = page.redirectedTo;
        return {
          content: `${page.url} redirects (HTTP ${page.status}) to another origin: ${to}\nTo read it, call web_fetch with that URL.`,
          display: `${page.status} redirect to ${to} (not followed: another origin)`,
          metadata: { url: page.url, status: page.status, redirect: to, redirects: page.hops.slice(1) },
        };
      }
      const metadata = {
        url: page.url,
        status: page.status,
        contentType: page.contentType,
        bytes: page.body.length,
        downloadCut: page.truncated,
        redirects: page.hops.slice(1),
        ...(page.address ? { address: page.address } : {}),
      };
      if (page.status >= 400) {
        throw new ToolError('ExecutionFailed', `HTTP ${page.status} from ${page.url}`, metadata);
      }
      const type = page.contentType.split(';')[0]?.trim() ?? '';
      const decoded = decode(page.body, page.contentType);
      let title = '';
      let byline: string | undefined;
      let text: string;
      let htmlCut = false;
      if (HTML.test(type) || (type === '' && /^\s*<(!doctype html|html)/i.test(decoded))) {
        htmlCut = decoded.length > MAX_HTML_CHARS;
        ({ title, byline, text } = await convertPage(
          {
            html: htmlCut ? decoded.slice(0, MAX_HTML_CHARS) : decoded,
            url: page.url,
            format: a.format,
            selector: a.selector,
            maxChars: Math.max(a.max_length ?? 0, ctx.outputLimit * 2),
          },
          ctx.signal,
        ));
      } else if (PASS.test(type) || type === '') {
        if (a.selector)
          throw new ToolError(
            'BadArgs',
            `selector applies to HTML pages; ${page.url} is ${type || 'untyped'}`,
          );
        text = decoded;
      } else {
        throw new ToolError(
          'ExecutionFailed',
          `${page.url} is ${type}, not text: web_fetch returns HTML, text and JSON only`,
          metadata,
        );
      }
      let cut = false;
      if (a.max_length !== undefined && text.length > a.max_length) {
        text = text.slice(0, a.max_length);
        cut = true;
      }
      const notes = [
        cut ? `[cut at max_length ${a.max_length} characters]` : '',
        page.truncated
          ? `[download stopped at ${page.body.length} bytes: [tools.web] max_download_bytes]`
          : '',
        htmlCut
          ? `[only the first ${MAX_HTML_CHARS} characters of HTML were read; pass selector for a part]`
          : '',
      ].filter(Boolean);
      // The page's own title and byline are one line each: a newline in them would forge `Source:`.
      const heading = oneLine(title);
      const by = byline === undefined ? '' : oneLine(byline);
      const head = `${heading ? `# ${heading}\n` : ''}${by ? `${by}\n` : ''}Source: ${page.url}\n\n`;
      return {
        content: `${head}${text}${notes.length ? `\n\n${notes.join('\n')}` : ''}`,
        display: `${page.status} ${type || 'untyped'}, ${page.body.length} bytes from ${page.url}`,
        metadata,
      };
    },
  });
}

/** The body as text, in the charset the server named (UTF-8 when it named none or an unknown one). */
function decode(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
