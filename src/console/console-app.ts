import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { type Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { streamSSE } from 'hono/streaming';
import { previewHash } from '../core/preview-hash.js';
import type { GovernanceMode } from '../core/tier.js';
import type { ApprovalQueue, BatchHistory, ModeRecord } from '../journal/journal.js';
import {
  approvalCard,
  approvalsShell,
  batchesPage,
  batchPage,
  esc,
  loginForm,
  offersAlways,
  page,
  signedInPage,
} from './console-html.js';
import { LIVE_SCRIPT } from './console-live.js';
import {
  type ConsoleSession,
  ConsoleSessions,
  checkName,
  SESSION_MS,
  sameSecret,
} from './console-sessions.js';

export interface ConsoleSettings {
  journal: ApprovalQueue & BatchHistory;
  /** The mode in force, as every process on the journal sees it. */
  mode: () => { mode: GovernanceMode; record?: ModeRecord };
  /** Refuses a request a web page could have sent (Host and Origin; see http-guard.ts), or undefined. */
  checkOrigin: (headers: { host?: string; origin?: string }) => string | undefined;
  /**
   * Refuses a connection from another OS user of this machine (peer-owner.ts), or undefined. A
   * request that came over no socket is refused.
   */
  checkPeer: (socket: Socket) => string | undefined;
  /** The console's token: signs a browser in (POST /login), or a script in (`Authorization: Bearer`). */
  token: string;
  /** Where answers come from, recorded after the person's name (`console@host`). */
  answeredVia: string;
  /** The name a one-time code signs in, and the sign-in form's default (the OS user serving). */
  ownerName: string;
  /** How often the live feed looks for changes when the journal cannot say (SQLite). */
  pollMs?: number;
}

const COOKIE = 'toolgate_console';
/** The session's second half, which only the console's own page holds (console-sessions.ts). */
const KEY_HEADER = 'x-toolgate-key';

type Who = { session: ConsoleSession } | { bearer: true };
type Env = { Bindings: { incoming?: IncomingMessage }; Variables: { who: Who } };

/**
 * The web console (issue #17 §4, issue #30 §4 and §7) as a hono app: waiting approvals with their
 * whole, exact preview and approve / always / deny buttons, kept up to date in place; sessions →
 * batches → calls; the governance mode. Every request is refused from another OS user of this
 * machine, and unless its Host and Origin are this console's. A browser signs in with the token
 * in a POST form or a one-time code and holds a random session from then on, never the token.
 * Answers name the person and carry the batch, the call id and the hash of the preview shown; the
 * console records an answer only for the call that is waiting with exactly that preview.
 */
export function createConsoleApp(settings: ConsoleSettings): {
  app: Hono<Env>;
  /** A code that signs in once (`/login?code=…`), for the address `toolgate serve` prints. */
  oneTimeCode: () => string;
} {
  const { journal } = settings;
  const sessions = new ConsoleSessions();
  const app = new Hono<Env>();

  app.use('*', async (c, next) => {
    const socket = c.env?.incoming?.socket;
    const peer = socket
      ? settings.checkPeer(socket)
      : 'connect over TCP (this request came over no connection)';
    if (peer) return c.text(`refused: ${peer}`, 403);
    const host = c.req.header('host');
    const origin = c.req.header('origin');
    const problem = settings.checkOrigin({ ...(host ? { host } : {}), ...(origin ? { origin } : {}) });
    if (problem) return c.text(`refused: ${problem}`, 403);
    c.header('X-Frame-Options', 'DENY');
    c.header('Cache-Control', 'no-store');
    c.header(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'",
    );
    // same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on its own form posts.
    c.header('Referrer-Policy', 'same-origin');
    if (c.req.path === '/login') return await next();
    const bearer = c.req.header('authorization');
    if (bearer !== undefined && sameSecret(bearer, `Bearer ${settings.token}`)) {
      c.set('who', { bearer: true });
      return await next();
    }
    const id = getCookie(c, COOKIE);
    // The approvals and answers need the session's key as well: the cookie alone reaches every
    // server on this host the browser visits (cookies ignore the port).
    const session = c.req.path.startsWith('/api/')
      ? sessions.getWithKey(id, c.req.header(KEY_HEADER))
      : sessions.get(id);
    if (!session) {
      if (c.req.method === 'GET' && !c.req.path.startsWith('/api/') && c.req.path !== '/events')
        return c.redirect('/login', 303);
      return c.json({ error: 'sign in at /login (this console needs a sign-in, or its token)' }, 401);
    }
    c.set('who', { session });
    return await next();
  });

  const signIn = (c: Context<Env>, name: string) => {
    const session = sessions.create(name);
    setCookie(c, COOKIE, session.id, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      maxAge: Math.floor(SESSION_MS / 1000),
    });
    // The sign-in address (with its used code) is not sent on to anywhere.
    c.header('Referrer-Policy', 'no-referrer');
    return c.html(signedInPage(session.key));
  };
  const header = (c: Context<Env>) => {
    const who = c.get('who');
    return {
      mode: settings.mode(),
      ...(who && 'session' in who ? { signedInAs: who.session.name } : {}),
    };
  };
  const render = (c: Context<Env>, title: string, body: string, script = '') =>
    page(title, header(c), body, script);

  // Sign-in never puts the token in an address: a POST form, or a code that works once.
  app.get('/login', (c) => {
    const code = c.req.query('code');
    const problem =
      code === undefined
        ? undefined
        : 'That sign-in address was used already (it works once): sign in with the token.';
    if (code !== undefined) {
      const name = sessions.redeem(code);
      if (name !== undefined) return signIn(c, name);
    }
    const body = loginForm(settings.ownerName, problem);
    return c.html(page('Sign in', { mode: settings.mode() }, body), code === undefined ? 200 : 401);
  });
  app.post('/login', async (c) => {
    const form = await c.req.parseBody();
    const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
    const name = checkName(field('name'));
    const again = (problem: string) =>
      c.html(page('Sign in', { mode: settings.mode() }, loginForm(field('name'), problem)), 401);
    if (!sameSecret(field('token'), settings.token)) return again('Wrong token: give the console token.');
    if ('problem' in name) return again(name.problem);
    return signIn(c, name.name);
  });
  app.post('/logout', (c) => {
    sessions.end(getCookie(c, COOKIE));
    deleteCookie(c, COOKIE, { path: '/' });
    return c.redirect('/login', 303);
  });

  app.get('/', (c) => c.html(render(c, 'Waiting for an answer', approvalsShell(), LIVE_SCRIPT)));
  app.get('/api/approvals', (c) => c.json({ approvals: journal.pendingApprovals().map(approvalCard) }));
  app.get('/batches', (c) => c.html(render(c, 'Batches', batchesPage(journal.recentBatches(100)))));
  app.get('/sessions/:id', (c) => {
    const session = c.req.param('id');
    const batches = journal.recentBatches(2000).filter((b) => b.session === session);
    return c.html(render(c, `Session ${session}`, batchesPage(batches)));
  });
  app.get('/batches/:id', (c) => {
    const batch = journal.batch(c.req.param('id'));
    if (!batch) return c.html(render(c, 'No such batch', `<p>No batch ${esc(c.req.param('id'))}.</p>`), 404);
    return c.html(
      render(c, `Batch ${batch.id.slice(0, 8)}`, batchPage(batch, journal.approvalAnswers(batch.id))),
    );
  });

  // An answer: recorded only for the call waiting at that batch and index with that call id and
  // exactly the preview the person was shown; with the person's name.
  app.post('/api/answer', async (c) => {
    if (!(c.req.header('content-type') ?? '').startsWith('application/json'))
      return c.json({ error: 'send the answer as application/json' }, 415);
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = await c.req.json();
      if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object');
      body = parsed as Record<string, unknown>;
    } catch {
      return c.json({ error: 'send the answer as a JSON object' }, 400);
    }
    const text = (k: string) => (typeof body[k] === 'string' ? (body[k] as string) : '');
    const who = c.get('who');
    let name: string;
    if ('session' in who) name = who.session.name;
    else {
      const given = checkName(text('name'));
      if ('problem' in given) return c.json({ error: `${given.problem} (send it as "name")` }, 400);
      name = given.name;
    }
    const approved = body.approved;
    if (typeof approved !== 'boolean') return c.json({ error: 'say "approved": true or false' }, 400);
    const index = body.index;
    if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0)
      return c.json({ error: 'give the call\'s "index" (a whole number from 0)' }, 400);
    const always = text('always');
    if (always !== '' && always !== 'session' && always !== 'project')
      return c.json({ error: '"always" is session or project, or left out' }, 400);
    const reason = text('reason').trim();
    if (!approved && !reason) return c.json({ error: 'give a reason to deny (the model reads it)' }, 400);

    const waiting = journal
      .pendingApprovals()
      .find((p) => p.batchId === text('batchId') && p.index === index);
    if (!waiting)
      return c.json(
        { error: 'that call is not waiting any more (someone answered it, or its batch moved on)' },
        409,
      );
    if (waiting.request.callId !== text('callId') || previewHash(waiting.request) !== text('preview'))
      return c.json(
        {
          error:
            'look at the call again and answer what is shown now: the call waiting there is not the one (or not the preview) you answered',
        },
        409,
      );
    if (approved && always && !offersAlways(waiting.request))
      return c.json({ error: 'approve this call once: "always" is not offered for it' }, 400);
    const by = `${name} via ${settings.answeredVia}`;
    const recorded = journal.answerApproval({
      batchId: waiting.batchId,
      index,
      approved,
      ...(approved && always ? { scope: always } : {}),
      ...(!approved ? { reason } : {}),
      preview: previewHash(waiting.request),
      by,
    });
    if (!recorded) return c.json({ error: 'that call was answered by someone else meanwhile' }, 409);
    return c.json({ ok: true, by });
  });

  // Live updates: `changed` whenever what the pages show may have moved (the page then asks).
  app.get('/events', (c) =>
    streamSSE(c, async (stream) => {
      const abort = new AbortController();
      stream.onAbort(() => abort.abort());
      const fingerprint = () =>
        JSON.stringify([
          journal.pendingApprovals().map((p) => [p.batchId, p.index, previewHash(p.request)]),
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
  return { app, oneTimeCode: () => sessions.oneTimeCode(settings.ownerName) };
}
