import { describeGrant } from '../approval/grant-coverage.js';
import type { ConfirmationRequest } from '../core/confirmation.js';
import type { GrantOffer } from '../core/grant.js';
import { previewHash } from '../core/preview-hash.js';
import type {
  ApprovalAnswer,
  BatchRecord,
  BatchSummary,
  ModeRecord,
  PendingApproval,
} from '../journal/journal.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import { argumentsText, callSummary } from './call-summary.js';

/**
 * The web console's pages (issue #17 §4): server-rendered HTML. Every value from the journal (which
 * holds what models wrote) goes through `esc`, or `exact` for what a person approves; the only
 * scripts are the approvals list's (console-live.ts) and sign-in's, inline and fixed.
 */
export function esc(value: unknown): string {
  return sanitizeForTerminal(String(value ?? '')).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

// Controls (bar newline and tab), format characters (bidi, zero-width), line separators, every
// default-ignorable character and every space other than U+0020.
const HIDDEN = /[^\P{C}\n\t]|[\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|[^\S \n\t]/gu;

/**
 * What a person approves, as text (issue #30 §1, §5): nothing removed, unlike `esc`. Characters
 * that would hide or reorder text (controls, bidi, zero-width, other invisibles) are shown as
 * escapes (`\u202e`); the approval request already carries them so, this makes sure. Then
 * HTML-escaped: never markup.
 */
export function exact(value: unknown): string {
  return String(value ?? '')
    .replace(HIDDEN, (c) => {
      const code = c.codePointAt(0) as number;
      return code <= 0xff
        ? `\\x${code.toString(16).padStart(2, '0')}`
        : code <= 0xffff
          ? `\\u${code.toString(16).padStart(4, '0')}`
          : `\\u{${code.toString(16)}}`;
    })
    .replace(
      /[&<>"']/g,
      (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
    );
}

const when = (ms: number | undefined) =>
  ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) : '';

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2433;background:#f6f7f9}
header{background:#1d2433;color:#fff;padding:10px 20px;display:flex;gap:24px;align-items:center}
header a{color:#cfe0ff;text-decoration:none}header .mode{margin-left:auto;font-weight:600}
main{padding:16px 20px;max-width:1100px}
.card{background:#fff;border:1px solid #d9dde5;border-radius:6px;padding:12px 16px;margin:12px 0}
pre{background:#f0f2f6;padding:8px;overflow:auto;max-height:420px;white-space:pre-wrap;word-break:break-all}
.call-summary{white-space:pre-wrap;word-break:break-all}
.add{color:#116329}.del{color:#a40e26}
table{border-collapse:collapse;width:100%;background:#fff}td,th{border:1px solid #d9dde5;padding:4px 8px;text-align:left;vertical-align:top}
form{display:inline-block;margin:4px 8px 0 0}button{padding:4px 10px;cursor:pointer}
.muted{color:#677}.ok{color:#116329}.fail{color:#a40e26}
header #who{color:#cfe0ff}
.answers button{margin:4px 8px 0 0}.deny{display:inline-block;margin-left:12px}
button[data-inert]{opacity:.55;cursor:not-allowed}
#notice{position:fixed;left:0;right:0;bottom:0;background:#1d2433;color:#fff;padding:6px 20px;min-height:1.45em}
#notice:empty{visibility:hidden}main{padding-bottom:60px}`;

export interface PageHeader {
  mode: { mode: string; record?: ModeRecord };
  /** Who is signed in (shown, and recorded with every answer). */
  signedInAs?: string;
}

export function page(title: string, header: PageHeader, body: string, script = ''): string {
  const { mode } = header;
  const since = mode.record
    ? ` <span class="muted">since ${esc(when(mode.record.at))} by ${esc(mode.record.actor)}: ${esc(mode.record.reason)}</span>`
    : '';
  const who = header.signedInAs
    ? `<span id="who">signed in as <strong>${exact(header.signedInAs)}</strong></span><form method="post" action="/logout"><button>Sign out</button></form>`
    : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)} · toolgate</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>${STYLE}</style></head>
<body><header><strong>toolgate</strong><a href="/">Approvals</a><a href="/batches">Batches</a>${who}
<span class="mode" id="mode">mode: ${esc(mode.mode)}${since}</span></header>
<main><h1>${esc(title)}</h1>${body}</main>${script}</body></html>`;
}

/** A diff-like preview with its added and removed lines coloured; any other text as it is. */
function preview(detail: string): string {
  const html = detail
    .split('\n')
    .map((line) => {
      if (/^\+(?!\+\+)/.test(line)) return `<span class="add">${exact(line)}</span>`;
      if (/^-(?!--)/.test(line)) return `<span class="del">${exact(line)}</span>`;
      return exact(line);
    })
    .join('\n');
  return `<pre>${html}</pre>`;
}

/**
 * The approvals page: an empty list the script fills from /api/approvals and keeps up to date in
 * place; announcements go to a live region fixed at the bottom, so they move nothing.
 */
export function approvalsShell(): string {
  return `<div id="approvals" aria-busy="false"><p class="muted" id="loading">Reading the waiting calls…</p></div>
<div id="notice" role="status" aria-live="polite"></div>`;
}

/** One waiting call as the approvals list carries it: keyed by batch and call, with the hash of what is shown. */
export interface ApprovalCard {
  key: string;
  batchId: string;
  index: number;
  callId: string;
  preview: string;
  /** A plain-text name for announcements ("write_file: Create x (id abc.1)"). */
  label: string;
  /** The card's inner HTML, every value escaped. */
  html: string;
}

type Offering = ConfirmationRequest & { always?: GrantOffer };

/** Whether "always" may be chosen for this call (issue #30 §5: only what it covers is offered). */
export function offersAlways(request: ConfirmationRequest): boolean {
  const offer = (request as Offering).always;
  return offer !== undefined && 'covers' in offer;
}

/** Exactly what each "always" would cover, and for whom, in the grants' own words. */
function alwaysText(request: ConfirmationRequest): string {
  if (!offersAlways(request))
    return `<p class="always muted">${exact(describeGrant(request, 'session'))}</p>`;
  return `<p class="always muted">Always, this session: ${exact(describeGrant(request, 'session'))}.<br>Always, this project: ${exact(describeGrant(request, 'project'))}.</p>`;
}

export function approvalCard(p: PendingApproval): ApprovalCard {
  const r = p.request;
  const id = `${p.batchId}.${p.index + 1}`;
  const hash = previewHash(r);
  const html = `<h2>${exact(r.summary)}</h2>
${r.summaryFull ? `<p class="summary-full">Whole summary: <code>${exact(r.summaryFull)}</code></p>` : ''}
<p><strong>${exact(r.toolName)}</strong> · risk ${esc(r.risk)} · session <a href="/sessions/${encodeURIComponent(p.session)}">${esc(p.session)}</a> · asked ${esc(when(p.requestedAt))} · <a href="/batches/${encodeURIComponent(p.batchId)}">batch ${esc(p.batchId.slice(0, 8))}</a> · id <code>${esc(id)}</code> · call <code>${exact(r.callId)}</code></p>
${r.locations.length ? `<p>Touches: ${r.locations.map((l) => `<code>${exact(l.path)}</code> (${esc(l.access)})`).join(', ')}</p>` : ''}
<p>Asked because ${exact(r.reason)} <span class="muted">(${exact(r.rule)})</span>${r.message ? ` — ${exact(r.message)}` : ''}</p>
${r.detail ? preview(r.detail) : ''}
${r.commands ? `<p>Sub-commands, each judged: ${r.commands.map((c) => `<code>${exact(c)}</code>`).join(' · ')}</p>` : ''}
<p class="muted">preview ${esc(hash)}</p>
${alwaysText(r)}
<div class="answers"><button type="button" data-answer="approve" data-always="">Approve</button>${offersAlways(r) ? '<button type="button" data-answer="approve" data-always="session">Always, this session</button><button type="button" data-answer="approve" data-always="project">Always, this project</button>' : ''}
<span class="deny"><input name="reason" placeholder="why not (the model reads it)" size="40" aria-label="reason to deny"><button type="button" data-answer="deny">Deny</button></span></div>`;
  return {
    key: `${p.batchId}/${r.callId}`,
    batchId: p.batchId,
    index: p.index,
    callId: r.callId,
    preview: hash,
    label: `${r.toolName}: ${r.summary.slice(0, 80)} (id ${id})`,
    html,
  };
}

/**
 * Sign-in: the token in a POST form (never in the address), with the name recorded with every
 * answer. `problem` says what went wrong with the last try.
 */
export function loginForm(defaultName: string, problem?: string): string {
  return `${problem ? `<p class="fail" id="problem">${esc(problem)}</p>` : ''}
<form method="post" action="/login" class="card login">
<p><label>Console token<br><input type="password" name="token" autocomplete="off" required size="50"></label></p>
<p><label>Your name (recorded with every answer you give)<br><input name="name" required maxlength="80" value="${esc(defaultName)}"></label></p>
<p><button>Sign in</button></p></form>
<p class="muted">The token is TOOLGATE_CONSOLE_TOKEN, or the one <code>toolgate serve</code> printed. The address it printed with <code>?code=</code> signs in once without it.</p>`;
}

/**
 * Signed in: the page keeps this session's key in its origin's storage (a different port is a
 * different origin, so no other local server's page can read it) and replaces its address, so the
 * sign-in address is not the one left in this tab's history.
 */
export function signedInPage(key: string): string {
  // The key is hex (console-sessions.ts): nothing in it can end the string or the script.
  if (!/^[0-9a-f]+$/.test(key)) throw new Error('a session key must be hex');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signed in · toolgate</title></head>
<body><p>Signed in. <a href="/">Continue</a></p>
<script>localStorage.setItem('toolgate-console-key', '${key}'); location.replace('/');</script></body></html>`;
}

export function batchesPage(batches: readonly BatchSummary[], heading?: string): string {
  if (batches.length === 0) return '<p>No batches yet.</p>';
  const rows = batches
    .map(
      (b) =>
        `<tr><td><a href="/batches/${encodeURIComponent(b.id)}">${esc(b.id.slice(0, 8))}</a></td><td><a href="/sessions/${encodeURIComponent(b.session)}">${esc(b.session)}</a></td><td>${esc(b.status)}</td><td>${esc(when(b.createdAt))}</td><td>${b.calls}</td><td class="${b.failed ? 'fail' : ''}">${b.failed}</td></tr>`,
    )
    .join('');
  return `${heading ? `<p>${esc(heading)}</p>` : ''}<table><tr><th>batch</th><th>session</th><th>status</th><th>recorded</th><th>calls</th><th>failed</th></tr>${rows}</table>`;
}

/** How a call was answered, and by whom (issue #30 §4). */
function answerCell(answer: ApprovalAnswer | undefined): string {
  if (!answer) return '';
  const what = answer.approved
    ? `approved${answer.scope ? ` (always, this ${esc(answer.scope)})` : ''}`
    : `denied${answer.reason ? `: ${exact(answer.reason)}` : ''}`;
  return `<span class="${answer.approved ? 'ok' : 'fail'}">${what}</span><br><span class="answered-by">by ${exact(answer.by)}</span> <span class="muted">${esc(when(answer.at))}</span>`;
}

export function batchPage(batch: BatchRecord, answers: readonly ApprovalAnswer[] = []): string {
  const answerOf = new Map(answers.map((a) => [a.index, a]));
  const rows = batch.calls
    .map((c) => {
      const result = c.result
        ? `<span class="${c.result.ok ? 'ok' : 'fail'}">${c.result.ok ? 'ok' : esc(c.result.error?.type)}</span><pre>${esc(c.result.content.slice(0, 2000))}${c.result.content.length > 2000 ? '\n…' : ''}</pre>`
        : '';
      const took = c.startedAt && c.finishedAt ? `${c.finishedAt - c.startedAt} ms` : '';
      // What the call does, always; its exact arguments on demand (issue #31 §3).
      const call = `<code class="call-summary">${exact(callSummary(c.name, c.arguments))}</code><details class="call-arguments"><summary>arguments</summary><pre>${exact(argumentsText(c.arguments))}</pre></details>`;
      return `<tr><td>${c.index + 1}</td><td>${call}<br><code class="muted">${esc(c.id)}</code></td><td>${esc(c.status)}</td><td>${c.decision ? `${esc(c.decision.action)}<br><span class="muted">${esc(c.decision.rule)}</span>` : ''}</td><td>${c.approval ? exact(c.approval.summary) : ''}</td><td>${answerCell(answerOf.get(c.index))}</td><td>${result}</td><td>${esc(when(c.startedAt))}<br>${esc(took)}</td></tr>`;
    })
    .join('');
  return `<p>session <a href="/sessions/${encodeURIComponent(batch.session)}">${esc(batch.session)}</a> · ${esc(batch.status)} · recorded ${esc(when(batch.createdAt))}${batch.finishedAt ? ` · finished ${esc(when(batch.finishedAt))}` : ''}${batch.lease ? ` · held by ${esc(batch.lease.worker)} until ${esc(when(batch.lease.expiresAt))}` : ''}</p>
${batch.assistantText ? `<pre>${esc(batch.assistantText)}</pre>` : ''}
<table><tr><th>#</th><th>call</th><th>status</th><th>decision</th><th>asked</th><th>answer</th><th>result</th><th>started / took</th></tr>${rows}</table>`;
}
