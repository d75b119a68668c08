// The console's browser script: actions without a page reload, confirmations, and live updates by Server-Sent Events.

/**
 * Progressive enhancement only: every form also works as a plain POST without it. With it, an
 * action asks for confirmation when its form says so (`data-confirm`; `data-danger` before an
 * approval of a dangerous tool, which the server then accepts as confirmed), shows its result next to
 * the form, and the page's content follows the server's `changed` events (unless someone is
 * typing: then a banner offers to refresh). `live` events carry the streamed text of a running step.
 */
export const consoleScript = `
(() => {
  const content = () => document.getElementById('content');
  const typing = () => [...document.querySelectorAll('#content input[type=text], #content textarea')].some((field) => field.value !== '' || field === document.activeElement);
  async function refresh(force) {
    if (!force && typing()) { document.getElementById('stale').hidden = false; return; }
    const response = await fetch(location.href, { headers: { Accept: 'text/html' } });
    if (!response.ok) return;
    const next = new DOMParser().parseFromString(await response.text(), 'text/html').getElementById('content');
    if (next && content()) { content().replaceWith(next); document.getElementById('stale').hidden = true; }
  }
  document.addEventListener('click', (event) => {
    if (event.target instanceof HTMLElement && event.target.id === 'stale-refresh') refresh(true);
    const load = event.target instanceof HTMLElement ? event.target.closest('[data-artifact]') : null;
    if (load) {
      event.preventDefault();
      fetch(load.getAttribute('data-artifact')).then(async (response) => {
        const target = document.getElementById(load.getAttribute('aria-controls'));
        target.textContent = response.ok ? await response.text() : 'Could not load: ' + response.status;
        load.remove();
      });
    }
  });
  document.addEventListener('submit', async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-action')) return;
    event.preventDefault();
    const question = form.getAttribute('data-confirm');
    if (question && !window.confirm(question)) return;
    const body = new URLSearchParams(new FormData(form, event.submitter));
    // An approval of a tool the agent marks dangerous is confirmed a second time before it is sent.
    const danger = form.getAttribute('data-danger');
    if (danger && body.get('decision') === 'approve') {
      if (!window.confirm(danger)) return;
      body.set('confirmed', 'yes');
    }
    const result = form.querySelector('.result');
    const buttons = [...form.querySelectorAll('button')];
    buttons.forEach((button) => (button.disabled = true));
    try {
      const response = await fetch(form.action, { method: 'POST', body, headers: { Accept: 'application/json' } });
      const answer = await response.json().catch(() => ({ ok: false, message: 'The console answered ' + response.status }));
      // The result shows next to the form and in the page's notice, which outlives a refresh of the content.
      for (const place of [result, document.getElementById('notice')]) {
        if (!place) continue;
        place.className = 'result ' + (answer.ok ? 'ok' : 'refused');
        place.textContent = answer.message;
        if (answer.link) { const link = document.createElement('a'); link.href = answer.link; link.textContent = ' Open it'; place.append(' ', link); }
      }
      if (answer.ok) form.querySelectorAll('input[type=text], textarea').forEach((field) => (field.value = ''));
    } finally {
      buttons.forEach((button) => (button.disabled = false));
    }
    refresh(true);
  });
  const stream = document.body.getAttribute('data-stream');
  if (stream) {
    const source = new EventSource(stream);
    source.addEventListener('changed', () => refresh(false));
    source.addEventListener('live', (event) => {
      const live = document.getElementById('live');
      if (live) live.textContent = JSON.parse(event.data).text;
    });
  }
})();
`;
