import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ToolError, type ToolErrorType } from '../../core/tool-error.js';
import type { PageFormat, PageText } from './page-to-text.js';

/** Memory the conversion may take; a page that needs more is refused, the process is not. */
const HEAP_MB = 512;
/** Characters of HTML handed to the DOM: a bigger page is converted up to here, and the result says so. */
export const MAX_HTML_CHARS = 2 * 1024 * 1024;

/**
 * Where the worker's code is: the CLI bundle's (dist/bundle/page-worker.js, which holds linkedom,
 * Readability and Turndown, so neither the library nor the CLI needs them installed) from this
 * module in dist/tools/web or from a bundle chunk; else beside this module (dist/tools/web), or,
 * when run from the TypeScript sources (tests), the built file in dist/.
 */
function workerFile(): URL {
  for (const candidate of [
    '../../bundle/page-worker.js',
    './page-worker.js',
    '../page-worker.js',
    '../../../dist/tools/web/page-worker.js',
  ]) {
    const url = new URL(candidate, import.meta.url);
    if (existsSync(fileURLToPath(url))) return url;
  }
  throw new ToolError('Internal', 'the page converter (page-worker.js) is missing; run npm run build');
}

let idle: Worker | undefined;
let queue: Promise<unknown> = Promise.resolve();

/**
 * HTML → text in a worker thread with a memory cap: a pathological page (deep nesting, a huge
 * table, a selector that backtracks) costs its own thread, never the event loop every other call
 * and session shares; when `signal` fires (the call's timeout or a cancel) the thread is
 * terminated mid-work. One thread, kept for the next page; conversions take turns.
 */
export function convertPage(
  job: { html: string; url: string; format: PageFormat; selector?: string | undefined; maxChars: number },
  signal: AbortSignal,
): Promise<PageText> {
  const run = queue.then(() => convertNow(job, signal));
  queue = run.catch(() => {});
  return run;
}

function convertNow(
  job: { html: string; url: string; format: PageFormat; selector?: string | undefined; maxChars: number },
  signal: AbortSignal,
): Promise<PageText> {
  if (signal.aborted) return Promise.reject(signal.reason);
  const worker =
    idle ??
    new Worker(workerFile(), {
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: 64, stackSizeMb: 8 },
    });
  idle = undefined;
  worker.ref();
  return new Promise<PageText>((resolve, reject) => {
    const done = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      signal.removeEventListener('abort', onAbort);
    };
    const onMessage = (
      m: { ok: true; page: PageText } | { ok: false; type: ToolErrorType; message: string },
    ) => {
      done();
      worker.unref(); // an idle converter never keeps the process alive
      idle = worker;
      if (m.ok) resolve(m.page);
      else reject(new ToolError(m.type, m.message));
    };
    const onError = (error: Error & { code?: string }) => {
      done();
      void worker.terminate();
      reject(
        new ToolError(
          'ExecutionFailed',
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `converting the page needed more than ${HEAP_MB} MB; fetch a part of it with selector, or use format "html" with max_length`
            : `the page could not be converted (${error.message})`,
        ),
      );
    };
    const onExit = () => {
      done();
      reject(new ToolError('ExecutionFailed', 'the page converter stopped unexpectedly'));
    };
    const onAbort = () => {
      done();
      void worker.terminate(); // the work stops where it is; the next page gets a fresh thread
      reject(signal.reason);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    signal.addEventListener('abort', onAbort, { once: true });
    worker.postMessage(job);
  });
}
