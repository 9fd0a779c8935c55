import { previewHash } from '../core/preview-hash.js';
import type { BatchRecord, BatchSummary, ModeRecord, PendingApproval } from '../journal/journal.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';

/**
 * The web console's pages (issue #17 §4): plain server-rendered HTML. Every value from the journal
 * (which holds what models wrote) goes through `esc`, control characters made visible first; the
 * only script is the live-update listener, inline and fixed.
 */
export function esc(value: unknown): string {
  return sanitizeForTerminal(String(value ?? '')).replace(
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
.add{color:#116329}.del{color:#a40e26}
table{border-collapse:collapse;width:100%;background:#fff}td,th{border:1px solid #d9dde5;padding:4px 8px;text-align:left;vertical-align:top}
form{display:inline-block;margin:4px 8px 0 0}button{padding:4px 10px;cursor:pointer}
.muted{color:#677}.ok{color:#116329}.fail{color:#a40e26}`;

/** Live updates: the server says `changed` (server-sent events) and the page is read again, unless a person is typing. */
const LIVE = `<script>
const events = new EventSource('/events');
events.addEventListener('changed', () => {
  if (!document.querySelector('input:focus, textarea:focus')) location.reload();
});
</script>`;

export function page(title: string, mode: { mode: string; record?: ModeRecord }, body: string): string {
  const since = mode.record
    ? ` <span class="muted">since ${esc(when(mode.record.at))} by ${esc(mode.record.actor)}: ${esc(mode.record.reason)}</span>`
    : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)} · toolgate</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>${STYLE}</style></head>
<body><header><strong>toolgate</strong><a href="/">Approvals</a><a href="/batches">Batches</a>
<span class="mode" id="mode">mode: ${esc(mode.mode)}${since}</span></header>
<main><h1>${esc(title)}</h1>${body}</main>${LIVE}</body></html>`;
}

/** A diff-like preview with its added and removed lines coloured; any other text as it is. */
function preview(detail: string): string {
  const html = detail
    .split('\n')
    .map((line) => {
      if (/^\+(?!\+\+)/.test(line)) return `<span class="add">${esc(line)}</span>`;
      if (/^-(?!--)/.test(line)) return `<span class="del">${esc(line)}</span>`;
      return esc(line);
    })
    .join('\n');
  return `<pre>${html}</pre>`;
}

export function approvalsPage(pending: readonly PendingApproval[], csrf: string): string {
  if (pending.length === 0) return '<p id="none">Nothing is waiting for an answer.</p>';
  return pending
    .map((p) => {
      const r = p.request;
      const id = `${p.batchId}.${p.index + 1}`;
      const hidden = `<input type="hidden" name="csrf" value="${esc(csrf)}"><input type="hidden" name="batch" value="${esc(p.batchId)}"><input type="hidden" name="index" value="${p.index}"><input type="hidden" name="preview" value="${esc(previewHash(r))}">`;
      return `<section class="card approval" data-id="${esc(id)}">
<h2>${esc(r.summary)}</h2>
<p><strong>${esc(r.toolName)}</strong> · risk ${esc(r.risk)} · session <a href="/sessions/${encodeURIComponent(p.session)}">${esc(p.session)}</a> · asked ${esc(when(p.requestedAt))} · <a href="/batches/${encodeURIComponent(p.batchId)}">batch ${esc(p.batchId.slice(0, 8))}</a> · id <code>${esc(id)}</code></p>
${r.locations.length ? `<p>Touches: ${r.locations.map((l) => `<code>${esc(l.path)}</code> (${esc(l.access)})`).join(', ')}</p>` : ''}
<p>Asked because ${esc(r.reason)} <span class="muted">(${esc(r.rule)})</span>${r.message ? ` — ${esc(r.message)}` : ''}</p>
${r.detail ? preview(r.detail) : ''}
${r.commands ? `<p>Sub-commands, each judged: ${r.commands.map((c) => `<code>${esc(c)}</code>`).join(' · ')}</p>` : ''}
<p class="muted">preview ${esc(previewHash(r))}</p>
<form method="post" action="/approvals/approve">${hidden}<button name="always" value="">Approve</button><button name="always" value="session">Always, this session</button><button name="always" value="project">Always, this project</button></form>
<form method="post" action="/approvals/deny">${hidden}<input name="reason" required placeholder="why not (the model reads it)" size="40"><button>Deny</button></form>
</section>`;
    })
    .join('\n');
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

export function batchPage(batch: BatchRecord): string {
  const rows = batch.calls
    .map((c) => {
      const result = c.result
        ? `<span class="${c.result.ok ? 'ok' : 'fail'}">${c.result.ok ? 'ok' : esc(c.result.error?.type)}</span><pre>${esc(c.result.content.slice(0, 2000))}${c.result.content.length > 2000 ? '\n…' : ''}</pre>`
        : '';
      const took = c.startedAt && c.finishedAt ? `${c.finishedAt - c.startedAt} ms` : '';
      return `<tr><td>${c.index + 1}</td><td>${esc(c.name)}<br><code class="muted">${esc(c.id)}</code></td><td>${esc(c.status)}</td><td>${c.decision ? `${esc(c.decision.action)}<br><span class="muted">${esc(c.decision.rule)}</span>` : ''}</td><td>${c.approval ? esc(c.approval.summary) : ''}</td><td>${result}</td><td>${esc(when(c.startedAt))}<br>${esc(took)}</td></tr>`;
    })
    .join('');
  return `<p>session <a href="/sessions/${encodeURIComponent(batch.session)}">${esc(batch.session)}</a> · ${esc(batch.status)} · recorded ${esc(when(batch.createdAt))}${batch.finishedAt ? ` · finished ${esc(when(batch.finishedAt))}` : ''}${batch.lease ? ` · held by ${esc(batch.lease.worker)} until ${esc(when(batch.lease.expiresAt))}` : ''}</p>
${batch.assistantText ? `<pre>${esc(batch.assistantText)}</pre>` : ''}
<table><tr><th>#</th><th>call</th><th>status</th><th>decision</th><th>asked</th><th>result</th><th>started / took</th></tr>${rows}</table>`;
}
