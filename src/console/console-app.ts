import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { streamSSE } from 'hono/streaming';
import type { GovernanceMode } from '../core/tier.js';
import type { Journal, ModeRecord } from '../journal/journal.js';
import { approvalsPage, batchesPage, batchPage, esc, page } from './console-html.js';

export interface ConsoleSettings {
  journal: Journal;
  /** The mode in force, as every process on the journal sees it. */
  mode: () => { mode: GovernanceMode; record?: ModeRecord };
  /** Refuses a request a web page could have sent (Host and Origin; see http-guard.ts), or undefined. */
  checkOrigin: (headers: { host?: string; origin?: string }) => string | undefined;
  /** Off loopback: the token a browser must present (cookie, set by /login, or a bearer header). */
  token?: string;
  /** Whose answers these are, for the audit trail (`console@host`). */
  answeredBy: string;
  /** How often the live feed looks for changes when the journal cannot say (SQLite). */
  pollMs?: number;
}

const COOKIE = 'toolgate_console';
const digest = (s: string) => createHash('sha256').update(s).digest();
const same = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

/**
 * The web console (issue #17 §4) as a hono app: waiting approvals with their whole preview and
 * approve / deny / always buttons; sessions → batches → calls; live updates by server-sent events;
 * the governance mode. Every request's Host and Origin are checked (no DNS rebinding, no other
 * site's page driving it); every form carries this process's CSRF token; off loopback a token is
 * needed as well. Answers go into the journal, where the waiting worker picks them up.
 */
export function createConsoleApp(settings: ConsoleSettings): { app: Hono; csrf: string } {
  const { journal } = settings;
  const csrf = createHash('sha256')
    .update(crypto.getRandomValues(new Uint8Array(32)))
    .digest('hex');
  const app = new Hono();

  app.use('*', async (c, next) => {
    const host = c.req.header('host');
    const origin = c.req.header('origin');
    const problem = settings.checkOrigin({ ...(host ? { host } : {}), ...(origin ? { origin } : {}) });
    if (problem) return c.text(`refused: ${problem}`, 403);
    if (settings.token !== undefined && c.req.path !== '/login') {
      const bearer = c.req.header('authorization');
      const cookie = getCookie(c, COOKIE);
      const ok =
        (bearer !== undefined && same(bearer, `Bearer ${settings.token}`)) ||
        (cookie !== undefined && same(cookie, settings.token));
      if (!ok) return c.text('refused: this console needs its token (open /login?token=…)', 401);
    }
    c.header('X-Frame-Options', 'DENY');
    c.header(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'",
    );
    // same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on its own form posts.
    c.header('Referrer-Policy', 'same-origin');
    return await next();
  });

  // Off loopback: the token once in the address, then an HttpOnly, SameSite=Strict cookie.
  app.get('/login', (c) => {
    const given = c.req.query('token') ?? '';
    if (settings.token === undefined || !same(given, settings.token))
      return c.text('refused: wrong token', 401);
    setCookie(c, COOKIE, settings.token, { httpOnly: true, sameSite: 'Strict', path: '/' });
    return c.redirect('/', 303);
  });

  const render = (title: string, body: string) => page(title, settings.mode(), body);

  app.get('/', (c) =>
    c.html(render('Waiting for an answer', approvalsPage(journal.pendingApprovals(), csrf))),
  );
  app.get('/batches', (c) => c.html(render('Batches', batchesPage(journal.recentBatches(100)))));
  app.get('/sessions/:id', (c) => {
    const session = c.req.param('id');
    const batches = journal.recentBatches(2000).filter((b) => b.session === session);
    return c.html(render(`Session ${session}`, batchesPage(batches)));
  });
  app.get('/batches/:id', (c) => {
    const batch = journal.batch(c.req.param('id'));
    if (!batch) return c.html(render('No such batch', `<p>No batch ${esc(c.req.param('id'))}.</p>`), 404);
    return c.html(render(`Batch ${batch.id.slice(0, 8)}`, batchPage(batch)));
  });

  const answer = (approved: boolean) =>
    app.post(`/approvals/${approved ? 'approve' : 'deny'}`, async (c) => {
      const form = await c.req.parseBody();
      const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
      if (!same(field('csrf'), csrf)) return c.text('refused: the form is not from this console (CSRF)', 403);
      const index = Number(field('index'));
      const always = field('always');
      const reason = field('reason').trim();
      if (!approved && !reason) return c.text('a denial needs a reason (the model reads it)', 400);
      if (!Number.isSafeInteger(index) || index < 0) return c.text('bad call index', 400);
      const recorded = journal.answerApproval({
        batchId: field('batch'),
        index,
        approved,
        ...(approved && (always === 'session' || always === 'project') ? { scope: always } : {}),
        ...(!approved ? { reason } : {}),
        preview: field('preview'),
        by: settings.answeredBy,
      });
      if (!recorded)
        return c.html(
          render(
            'Not recorded',
            '<p>That call is not waiting any more (someone answered it, or its batch moved on).</p><p><a href="/">Back</a></p>',
          ),
          409,
        );
      return c.redirect('/', 303);
    });
  answer(true);
  answer(false);

  // Live updates: `changed` whenever what the pages show may have moved.
  app.get('/events', (c) =>
    streamSSE(c, async (stream) => {
      const abort = new AbortController();
      stream.onAbort(() => abort.abort());
      const fingerprint = () =>
        JSON.stringify([
          journal.pendingApprovals().map((p) => [p.batchId, p.index]),
          journal.recentBatches(20).map((b) => [b.id, b.status, b.calls]),
          settings.mode().mode,
        ]);
      let last = fingerprint();
      await stream.writeSSE({ event: 'hello', data: 'listening' });
      while (!abort.signal.aborted) {
        await journal.approvalsChanged(abort.signal, settings.pollMs ?? 500);
        if (abort.signal.aborted) break;
        const now = fingerprint();
        if (now !== last) {
          last = now;
          await stream.writeSSE({ event: 'changed', data: 'changed' });
        }
      }
    }),
  );
  return { app, csrf };
}
