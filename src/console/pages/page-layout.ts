// The frame of every console page (navigation, who is signed in, notice area), the login page and plain results.
import { html } from 'hono/html';

/** A rendered piece of HTML (hono's escaped string). */
export type Html = ReturnType<typeof html>;

/** What the frame needs: the title, the signed-in identity, and where live updates come from. */
export interface PageFrame {
  title: string;
  identity: string | null;
  /** The navigation entry this page belongs to. */
  section: 'inbox' | 'runs' | 'schedules' | 'none';
  /** A Server-Sent Events URL whose `changed` events refresh the page's content. */
  streamUrl?: string;
  /** The CSRF token of the signed-in identity (for the sign-out form). */
  csrf?: string;
}

/** A whole page: the frame around `content` (which live updates replace). */
export function page(frame: PageFrame, content: Html): Html {
  const link = (section: PageFrame['section'], href: string, text: string) =>
    frame.section === section ? html`<a href="${href}" aria-current="page">${text}</a>` : html`<a href="${href}">${text}</a>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · durable-agents console</title>
<link rel="stylesheet" href="/assets/console.css">
</head>
<body data-stream="${frame.streamUrl ?? ''}">
<a class="skip" href="#content">Skip to content</a>
<header class="top">
  <strong>durable-agents console</strong>
  <nav aria-label="Sections">${link('inbox', '/', 'Approvals inbox')}${link('runs', '/runs', 'Runs and threads')}${link('schedules', '/schedules', 'Schedules')}</nav>
  ${frame.identity ? html`<span class="who">Signed in as <strong id="identity">${frame.identity}</strong></span>${frame.csrf ? html`<form method="post" action="/logout"><input type="hidden" name="csrf" value="${frame.csrf}"><button>Sign out</button></form>` : ''}` : ''}
</header>
<main>
<p id="stale" role="status" hidden>This page has changed. <button id="stale-refresh" type="button">Refresh</button></p>
<p id="notice" class="result" role="status" aria-live="polite"></p>
${content}
</main>
<script src="/assets/console.js" defer></script>
</body>
</html>`;
}

/** The sign-in page: one field for the access token (sent in the body, never in the URL). */
export function loginPage(failed: boolean): Html {
  return page(
    { title: 'Sign in', identity: null, section: 'none' },
    html`<div id="content"><h1>Sign in</h1>
<form method="post" action="/login" class="card">
  ${failed ? html`<p class="failure" role="alert">That token is not valid.</p>` : ''}
  <label>Access token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
  <p><button type="submit">Sign in</button></p>
</form></div>`,
  );
}

/** An action's result as a page, for browsers without the script (every form works as a plain POST). */
export function resultPage(identity: string, result: { ok: boolean; message: string; link?: string }, back: string): Html {
  return page(
    { title: result.ok ? 'Done' : 'Not done', identity, section: 'none' },
    html`<div id="content"><h1>${result.ok ? 'Done' : 'Not done'}</h1>
<p class="result ${result.ok ? 'ok' : 'refused'}" role="status">${result.message}</p>
${result.link ? html`<p><a href="${result.link}">Open it</a></p>` : ''}
<p><a href="${back}">Back</a></p></div>`,
  );
}

/** "in 4m", "3h ago": a short distance in time from `now`. */
export function relativeTime(at: number, now: number): string {
  const seconds = Math.round((at - now) / 1000);
  const size = Math.abs(seconds);
  const text =
    size < 60
      ? `${size}s`
      : size < 3600
        ? `${Math.round(size / 60)}m`
        : size < 172_800
          ? `${Math.round(size / 3600)}h`
          : `${Math.round(size / 86_400)}d`;
  return seconds >= 0 ? `in ${text}` : `${text} ago`;
}

/** A UTC time a person reads: `2026-11-24 09:12 UTC`. */
export function utcTime(at: number | Date): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A value as readable text: strings as they are, everything else as indented JSON. */
export function readable(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
