// One argument of a gated call as an approver reads it: its size, its beginning and its end always shown, the middle one click away.
import { html } from 'hono/html';
import { readable, type Html } from './page-layout';

/** Lines (and characters) of a long value's beginning and end that are always on the page. */
const HEAD_LINES = 12;
const TAIL_LINES = 8;
const PART_CHARS = 2_000;
/** Characters that change how text reads without being seen (zero-width, direction overrides, BOM). */
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

/** What a value is at a glance: "45 items · 2.1 KB", "230 lines · 12.3 KB", or nothing for a short scalar. */
export function valueSize(value: unknown): string {
  const text = readable(value);
  const bytes = formatBytes(Buffer.byteLength(text, 'utf8'));
  if (Array.isArray(value)) return `${value.length} ${value.length === 1 ? 'item' : 'items'} · ${bytes}`;
  if (value !== null && typeof value === 'object') {
    const fields = Object.keys(value).length;
    return `${fields} ${fields === 1 ? 'field' : 'fields'} · ${bytes}`;
  }
  const lines = text.split('\n').length;
  if (typeof value === 'string' && (lines > 1 || text.length > 80)) return `${lines} ${lines === 1 ? 'line' : 'lines'} · ${bytes}`;
  return '';
}

/** "12.3 KB", "512 B", "1.2 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The arguments as a list, each with its size. `full` shows every value whole (the approval's own
 * page); otherwise a long value shows its beginning and its end, and its middle opens in place:
 * no value is cut off without saying how much, and the end (where an injected instruction hides
 * best) is never inside a scroll box.
 */
export function argumentList(args: Record<string, unknown>, full: boolean): Html {
  return html`<dl class="arguments">${Object.entries(args).map(
    ([name, value]) => html`<dt>${name} <span class="size">${valueSize(value)}</span></dt><dd>${argumentValue(value, full)}</dd>`,
  )}</dl>`;
}

function argumentValue(value: unknown, full: boolean): Html {
  const raw = readable(value);
  const invisible = raw.match(INVISIBLE)?.length ?? 0;
  // Invisible characters are shown by their code point: what the page shows is what the tool gets.
  const text = raw.replace(INVISIBLE, (char) => `⟦U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟧`);
  const warning =
    invisible > 0
      ? html`<p class="warning" role="note">Contains ${invisible} invisible or direction-changing ${invisible === 1 ? 'character' : 'characters'}, shown as ⟦U+…⟧.</p>`
      : '';
  const parts = full ? null : split(text);
  if (!parts) return html`${warning}<pre class="value">${text}</pre>`;
  const hiddenLines = parts.middle.split('\n').length;
  const hidden = `${hiddenLines} ${hiddenLines === 1 ? 'line' : 'lines'}, ${formatBytes(Buffer.byteLength(parts.middle, 'utf8'))}`;
  return html`${warning}<div class="value long"><pre class="head">${parts.head}</pre>
<details class="middle"><summary>Show the hidden middle (${hidden})</summary><pre>${parts.middle}</pre></details>
<pre class="tail" aria-label="The end of the value">${parts.tail}</pre></div>`;
}

/** A long text's beginning, middle and end (null when it is short enough to show whole). */
function split(text: string): { head: string; middle: string; tail: string } | null {
  if (text.length <= PART_CHARS * 2.5 && text.split('\n').length <= HEAD_LINES + TAIL_LINES + 6) return null;
  const lines = text.split('\n');
  let head = lines.slice(0, HEAD_LINES).join('\n');
  if (head.length > PART_CHARS) head = head.slice(0, PART_CHARS);
  let tail = lines.slice(-TAIL_LINES).join('\n');
  if (tail.length > PART_CHARS) tail = tail.slice(-PART_CHARS);
  if (head.length + tail.length >= text.length) return null;
  // The parts meet where they were cut (each part its own block: the line breaks between them go).
  const middle = text
    .slice(head.length, text.length - tail.length)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
  return { head, middle, tail };
}
