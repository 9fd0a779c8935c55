/**
 * The approvals page's only script (issue #30 §4): keeps the list of waiting calls up to date IN
 * PLACE, never reloading. Cards are keyed by batch and call; a card that comes or goes is announced
 * in a live region (fixed at the bottom, so the announcement itself moves nothing). Any answer
 * button that moved, or appeared, is inert for INERT_MS after the layout change, as browsers do
 * with permission prompts: a click aimed at one call that lands after another card vanished above
 * it does nothing, and says so. Moves are found by events (our own updates, ResizeObserver, window
 * resize), each comparing the buttons' places on the page with where they were. An answer carries
 * the batch, the call id and the preview hash of the card as shown; the server refuses it for
 * anything else. The session's key (from sign-in, in this origin's localStorage) goes in a header.
 */
export const INERT_MS = 1000;

export const LIVE_SCRIPT = `<script>
(() => {
  const KEY = localStorage.getItem('toolgate-console-key') || '';
  const list = document.getElementById('approvals');
  const notice = document.getElementById('notice');
  const places = new WeakMap();
  const timers = new WeakMap();
  const say = (text) => { notice.textContent = text; };
  const signedOut = () => {
    list.textContent = '';
    const p = document.createElement('p');
    p.id = 'signed-out';
    p.innerHTML = 'This page is not signed in (or the sign-in ran out). <a href="/login">Sign in</a>.';
    list.append(p);
  };
  const placeOf = (b) => {
    const r = b.getBoundingClientRect();
    return [r.left + scrollX, r.top + scrollY, r.width, r.height].join(',');
  };
  const makeInert = (b) => {
    b.dataset.inert = '1';
    b.setAttribute('aria-disabled', 'true');
    clearTimeout(timers.get(b));
    timers.set(b, setTimeout(() => {
      delete b.dataset.inert;
      b.removeAttribute('aria-disabled');
    }, ${INERT_MS}));
  };
  // After any layout change: a button not where it was (or new) waits before it answers.
  const settle = () => {
    for (const b of list.querySelectorAll('button[data-answer]')) {
      const now = placeOf(b);
      if (places.get(b) !== now) makeInert(b);
      places.set(b, now);
    }
  };
  new ResizeObserver(settle).observe(document.body);
  addEventListener('resize', settle);

  const label = (card) => card.dataset.label;
  const merge = (items) => {
    const keys = new Set(items.map((i) => i.key));
    const gone = [];
    const added = [];
    for (const card of [...list.querySelectorAll('section.approval')]) {
      if (!keys.has(card.dataset.key)) {
        gone.push(label(card));
        card.remove();
      }
    }
    let before = null;
    for (const item of items) {
      let card = [...list.querySelectorAll('section.approval')].find((c) => c.dataset.key === item.key);
      if (!card || card.dataset.preview !== item.preview) {
        const fresh = document.createElement('section');
        fresh.className = 'card approval';
        fresh.dataset.key = item.key;
        fresh.dataset.batch = item.batchId;
        fresh.dataset.index = String(item.index);
        fresh.dataset.call = item.callId;
        fresh.dataset.preview = item.preview;
        fresh.dataset.label = item.label;
        fresh.innerHTML = item.html;
        if (card) card.replaceWith(fresh);
        else if (before) before.after(fresh);
        else list.prepend(fresh);
        added.push(item.label);
        card = fresh;
      }
      before = card;
    }
    const none = document.getElementById('none');
    if (items.length === 0 && !none) {
      const p = document.createElement('p');
      p.id = 'none';
      p.textContent = 'Nothing is waiting for an answer.';
      list.append(p);
    } else if (items.length > 0 && none) none.remove();
    document.getElementById('signed-out')?.remove();
    settle();
    const parts = [];
    if (gone.length) parts.push('No longer waiting: ' + gone.join('; ') + '.');
    if (added.length) parts.push('New question: ' + added.join('; ') + '.');
    if (parts.length) say(parts.join(' '));
  };

  let running = false;
  let again = false;
  const refresh = async () => {
    if (running) { again = true; return; }
    running = true;
    try {
      do {
        again = false;
        const res = await fetch('/api/approvals', { headers: { 'x-toolgate-key': KEY }, cache: 'no-store' });
        if (res.status === 401) { signedOut(); return; }
        if (!res.ok) { say('Could not read the waiting calls (' + res.status + '); trying again on the next change.'); return; }
        merge((await res.json()).approvals);
      } while (again);
    } finally {
      running = false;
    }
  };

  const answer = async (button) => {
    const card = button.closest('section.approval');
    const approved = button.dataset.answer === 'approve';
    const reason = card.querySelector('input[name=reason]').value.trim();
    if (!approved && !reason) {
      say('Give a reason to deny: the model reads it.');
      card.querySelector('input[name=reason]').focus();
      return;
    }
    const body = {
      batchId: card.dataset.batch,
      index: Number(card.dataset.index),
      callId: card.dataset.call,
      preview: card.dataset.preview,
      approved,
      ...(approved && button.dataset.always ? { always: button.dataset.always } : {}),
      ...(!approved ? { reason } : {}),
    };
    const res = await fetch('/api/answer', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-toolgate-key': KEY },
      body: JSON.stringify(body),
    });
    const reply = await res.json().catch(() => ({ error: 'no answer from the console (' + res.status + ')' }));
    if (res.status === 401) return signedOut();
    await refresh();
    // Said last, so the list's own announcement (the card leaving) does not cover it.
    say(res.ok ? (approved ? 'Approved' : 'Denied') + ' ' + label(card) + ' as ' + reply.by + '.' : 'Not recorded: ' + reply.error);
  };

  document.addEventListener('click', (event) => {
    const button = event.target.closest && event.target.closest('button[data-answer]');
    if (!button) return;
    event.preventDefault();
    if (button.dataset.inert) {
      say('That button had just moved, so the click answered nothing: check which call it is and click again.');
      return;
    }
    void answer(button);
  }, true);

  const events = new EventSource('/events');
  events.addEventListener('changed', () => void refresh());
  events.addEventListener('hello', () => void refresh());
})();
</script>`;
