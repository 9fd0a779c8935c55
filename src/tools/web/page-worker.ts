import { parentPort } from 'node:worker_threads';
import { pageToText } from './page-to-text.js';

/**
 * The worker thread that turns HTML into text for web_fetch (convert-page.ts). The DOM, Readability
 * and the Markdown walk run synchronously and their cost grows with what a page chooses to be; here they
 * cannot stall the process, and the thread is killed when the call's time is up.
 */
parentPort?.on(
  'message',
  (job: {
    html: string;
    url: string;
    format: 'markdown' | 'text' | 'html';
    selector?: string;
    maxChars: number;
  }) => {
    try {
      parentPort?.postMessage({
        ok: true,
        page: pageToText(job.html, job.url, job.format, job.selector, job.maxChars),
      });
    } catch (error) {
      const e = error as { type?: unknown; message?: unknown };
      parentPort?.postMessage({
        ok: false,
        type: typeof e.type === 'string' ? e.type : 'ExecutionFailed',
        message: String(e.message ?? error),
      });
    }
  },
);
