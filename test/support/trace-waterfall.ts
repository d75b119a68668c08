// Draws a trace the collector received as an SVG waterfall (span tree on the left, time bars on the right), for review and the docs.
import type { ReceivedSpan } from './otel-collector';

const ROW = 20;
const LABEL_WIDTH = 420;
const BAR_WIDTH = 760;
const INDENT = 14;
const HEADER = 44;

/** Bar colours by who made the span: the caller, Temporal's interceptors, or the agent runtime's GenAI spans. */
function colourOf(span: ReceivedSpan): string {
  if (span.name.startsWith('invoke_agent')) return '#d97706';
  if (span.name.startsWith('chat ')) return '#7c3aed';
  if (span.name.startsWith('execute_tool')) return '#059669';
  if (span.service !== 'agent-worker') return '#6b7280';
  return '#2563eb';
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function formatDuration(nanos: bigint): string {
  const ms = Number(nanos) / 1e6;
  return ms >= 1_000 ? `${(ms / 1_000).toFixed(2)} s` : `${ms.toFixed(1)} ms`;
}

/** The spans in tree order (each after its parent, siblings by start time), with their depth. */
function treeOrder(spans: ReceivedSpan[]): Array<{ span: ReceivedSpan; depth: number }> {
  const ids = new Set(spans.map((span) => span.spanId));
  const children = new Map<string, ReceivedSpan[]>();
  for (const span of spans) {
    const parent = ids.has(span.parentSpanId) ? span.parentSpanId : '';
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const ordered: Array<{ span: ReceivedSpan; depth: number }> = [];
  const visit = (parent: string, depth: number) => {
    for (const span of [...(children.get(parent) ?? [])].sort((a, b) => (a.startNanos < b.startNanos ? -1 : 1))) {
      ordered.push({ span, depth });
      visit(span.spanId, depth + 1);
    }
  };
  visit('', 0);
  return ordered;
}

/** An SVG drawing of one trace: a row per span, its bar placed on the trace's time axis. */
export function traceWaterfallSvg(spans: ReceivedSpan[], title: string): string {
  const rows = treeOrder(spans);
  const start = spans.reduce((earliest, span) => (span.startNanos < earliest ? span.startNanos : earliest), spans[0]!.startNanos);
  const end = spans.reduce((latest, span) => (span.endNanos > latest ? span.endNanos : latest), spans[0]!.endNanos);
  const total = Number(end - start) || 1;
  const x = (nanos: bigint) => LABEL_WIDTH + (Number(nanos - start) / total) * BAR_WIDTH;
  const height = HEADER + rows.length * ROW + 10;
  const width = LABEL_WIDTH + BAR_WIDTH + 90;
  const lines = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="8" y="18" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
    `<text x="8" y="36" fill="#4b5563">${rows.length} spans over ${formatDuration(end - start)}: caller (grey), Temporal's interceptors (blue), invoke_agent (amber), chat (violet), execute_tool (green)</text>`,
  ];
  rows.forEach(({ span, depth }, index) => {
    const y = HEADER + index * ROW;
    if (index % 2 === 0) lines.push(`<rect x="0" y="${y}" width="${width}" height="${ROW}" fill="#f3f4f6"/>`);
    lines.push(`<text x="${8 + depth * INDENT}" y="${y + 14}">${escapeXml(span.name)}</text>`);
    const left = x(span.startNanos);
    const barWidth = Math.max(2, x(span.endNanos) - left);
    lines.push(`<rect x="${left.toFixed(1)}" y="${y + 4}" width="${barWidth.toFixed(1)}" height="${ROW - 8}" rx="2" fill="${colourOf(span)}"/>`);
    lines.push(
      `<text x="${(left + barWidth + 4).toFixed(1)}" y="${y + 14}" fill="#374151">${formatDuration(span.endNanos - span.startNanos)}</text>`,
    );
  });
  lines.push('</svg>');
  return `${lines.join('\n')}\n`;
}
