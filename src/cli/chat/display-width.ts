// How many terminal columns text takes: what the chat needs to erase and redraw the lines under its output.

/** Code point ranges most terminals draw two columns wide (CJK, Hangul, full-width forms, emoji). */
const WIDE: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x3fffd],
];

/** Columns of one code point: 0 for controls and combining marks, 2 for wide ones, else 1. */
export function codePointWidth(codePoint: number): number {
  if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint < 0xa0)) return 0;
  if ((codePoint >= 0x300 && codePoint <= 0x36f) || (codePoint >= 0x200b && codePoint <= 0x200f) || (codePoint >= 0xfe00 && codePoint <= 0xfe0f))
    return 0;
  return WIDE.some(([from, to]) => codePoint >= from && codePoint <= to) ? 2 : 1;
}

/** Columns `text` takes on one line (escape sequences take none). */
export function displayWidth(text: string): number {
  let width = 0;
  // eslint-disable-next-line no-control-regex -- terminal escape sequences are what is matched
  for (const character of text.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '')) width += codePointWidth(character.codePointAt(0)!);
  return width;
}

/** Rows a line of `text` fills on a terminal `columns` wide (at least 1: an empty line is a row too). */
export function rowsOf(text: string, columns: number): number {
  return Math.max(1, Math.ceil(displayWidth(text) / Math.max(1, columns)));
}
