// The line being typed in the chat: the text, the cursor, and the keys that edit it (a small readline, drawn by the chat itself).

/** What a key did to the line. */
export type InputKeyResult = 'edited' | 'submit' | 'interrupt' | 'end' | 'ignored';

/** The parts of a `keypress` event (node:readline's emitKeypressEvents) the line uses. */
export interface InputKey {
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
  sequence?: string;
}

/**
 * The text typed so far and where the cursor is, edited key by key: the usual readline keys
 * (arrows, Home/End, Ctrl-A/E/U/K/W, Backspace, Delete, Up/Down through the lines sent before).
 * Holds code points, so the cursor never lands inside a surrogate pair.
 */
export class InputLine {
  private characters: string[] = [];
  private cursor = 0;
  private readonly sent: string[] = [];
  private browsing: number | null = null;

  get text(): string {
    return this.characters.join('');
  }

  /** The text before the cursor (to place the terminal's cursor). */
  get beforeCursor(): string {
    return this.characters.slice(0, this.cursor).join('');
  }

  /** Applies one key; `submit` empties the line (read `take()` first). */
  press(typed: string | undefined, key: InputKey = {}): InputKeyResult {
    if (key.ctrl && key.name === 'c') return 'interrupt';
    if (key.ctrl && key.name === 'd') {
      if (this.characters.length === 0) return 'end';
      return this.deleteAt(this.cursor);
    }
    if (key.name === 'return' || key.name === 'enter') return 'submit';
    const edit = this.editKey(key);
    if (edit !== null) return edit;
    if (typed && !key.ctrl && !key.meta && !typed.startsWith('\x1b')) {
      const inserted = Array.from(typed.replace(/[\r\n\t]/g, ' ')).filter((character) => character >= ' ');
      if (inserted.length === 0) return 'ignored';
      this.characters.splice(this.cursor, 0, ...inserted);
      this.cursor += inserted.length;
      return 'edited';
    }
    return 'ignored';
  }

  /** The submitted text; the line is empty again and remembers it for Up. */
  take(): string {
    const text = this.text;
    if (text.trim() && this.sent.at(-1) !== text) this.sent.push(text);
    this.characters = [];
    this.cursor = 0;
    this.browsing = null;
    return text;
  }

  private editKey(key: InputKey): InputKeyResult | null {
    const name = key.ctrl ? `ctrl-${key.name}` : key.name;
    switch (name) {
      case 'backspace':
      case 'ctrl-h':
        return this.cursor > 0 ? this.deleteAt(--this.cursor) : 'ignored';
      case 'delete':
        return this.deleteAt(this.cursor);
      case 'left':
      case 'ctrl-b':
        return this.moveTo(this.cursor - 1);
      case 'right':
      case 'ctrl-f':
        return this.moveTo(this.cursor + 1);
      case 'home':
      case 'ctrl-a':
        return this.moveTo(0);
      case 'end':
      case 'ctrl-e':
        return this.moveTo(this.characters.length);
      case 'ctrl-u':
        this.characters.splice(0, this.cursor);
        return this.moveTo(0);
      case 'ctrl-k':
        this.characters.splice(this.cursor);
        return 'edited';
      case 'ctrl-w':
        return this.deleteWordBefore();
      case 'up':
      case 'down':
        return this.browse(name === 'up' ? -1 : 1);
      default:
        return null;
    }
  }

  private deleteAt(index: number): InputKeyResult {
    if (index >= this.characters.length) return 'ignored';
    this.characters.splice(index, 1);
    return 'edited';
  }

  private moveTo(index: number): InputKeyResult {
    this.cursor = Math.min(Math.max(index, 0), this.characters.length);
    return 'edited';
  }

  private deleteWordBefore(): InputKeyResult {
    let start = this.cursor;
    while (start > 0 && this.characters[start - 1] === ' ') start--;
    while (start > 0 && this.characters[start - 1] !== ' ') start--;
    this.characters.splice(start, this.cursor - start);
    return this.moveTo(start);
  }

  /** Up and Down walk through the lines sent before; past the newest is an empty line. */
  private browse(direction: -1 | 1): InputKeyResult {
    if (this.sent.length === 0) return 'ignored';
    const next = (this.browsing ?? this.sent.length) + direction;
    if (next < 0 || next > this.sent.length) return 'ignored';
    this.browsing = next === this.sent.length ? null : next;
    this.characters = Array.from(this.browsing === null ? '' : this.sent[next]!);
    return this.moveTo(this.characters.length);
  }
}
