// The chat on a terminal: output scrolls above one input line that stays visible and intact while answers stream.
import readline from 'node:readline';
import { LineQueue, type ChatIo } from './chat-io';
import { displayWidth, rowsOf } from './display-width';
import { InputLine } from './input-line';

type TerminalInput = NodeJS.ReadStream & { setRawMode(mode: boolean): unknown };
type TerminalOutput = NodeJS.WriteStream;

/**
 * Owns the terminal while the chat runs. The bottom of the screen is the output's unfinished line
 * (a streaming answer) and, under it, the input line (prompt and what is typed). Every write
 * erases that bottom, prints, and draws it again, so streamed text never lands inside what the
 * person is typing and the typed text is always in view. The input line keeps to one row (a long
 * one scrolls sideways), so erasing it never depends on guessing how the terminal wrapped it.
 * Keys come in raw mode: Ctrl-C is a key here, not a signal.
 */
export class TerminalChatIo implements ChatIo {
  readonly interactive = true;
  private readonly lines = new LineQueue();
  private readonly input = new InputLine();
  private prompt = '';
  /** Output after its last newline: on screen above the input line. */
  private partial = '';
  /** Rows the partial line took when drawn (what to go up by to erase it). */
  private drawnPartialRows = 0;
  private drawn = false;
  private closed = false;
  private interrupt: (() => void) | null = null;
  private readonly onKey = (typed: string | undefined, key: { name?: string; ctrl?: boolean; meta?: boolean } | undefined): void =>
    this.key(typed, key ?? {});

  constructor(
    private readonly stdin: TerminalInput = process.stdin as TerminalInput,
    private readonly stdout: TerminalOutput = process.stdout,
  ) {
    readline.emitKeypressEvents(stdin);
    stdin.setRawMode(true);
    stdin.on('keypress', this.onKey);
    stdin.resume();
  }

  next(): Promise<string | null> {
    return this.lines.next();
  }

  write(text: string): void {
    if (this.closed) return void this.stdout.write(text);
    this.erase();
    const all = this.partial + text.replace(/\t/g, '    ');
    const end = all.lastIndexOf('\n') + 1;
    this.stdout.write(all.slice(0, end));
    this.partial = all.slice(end);
    this.draw();
  }

  say(text: string): void {
    if (this.closed) return void this.stdout.write(text);
    this.erase();
    this.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    this.draw();
  }

  setPrompt(prompt: string): void {
    if (prompt === this.prompt) return;
    this.prompt = prompt;
    this.redraw();
  }

  onInterrupt(handler: () => void): void {
    this.interrupt = handler;
  }

  close(): void {
    if (this.closed) return;
    this.erase();
    this.closed = true;
    // The unfinished output line stays; the input line goes.
    this.stdout.write(this.partial ? `${this.partial}\n` : '');
    this.partial = '';
    this.stdin.off('keypress', this.onKey);
    this.stdin.setRawMode(false);
    this.stdin.pause();
    this.lines.end();
  }

  private key(typed: string | undefined, key: { name?: string; ctrl?: boolean; meta?: boolean }): void {
    if (this.closed) return;
    switch (this.input.press(typed, key)) {
      case 'submit': {
        const prompt = this.prompt;
        const line = this.input.take();
        // What was typed stays in the transcript, after the prompt it answered.
        this.say(`${prompt}${line}\n`);
        this.lines.push(line);
        return;
      }
      case 'interrupt':
        return this.interrupt?.();
      case 'end':
        return this.lines.end();
      case 'edited':
        return this.redraw();
      case 'ignored':
        return;
    }
  }

  private get columns(): number {
    return this.stdout.columns || 80;
  }

  private redraw(): void {
    if (this.closed) return;
    this.erase();
    this.draw();
  }

  /** Takes the partial output line and the input line off the screen; the cursor ends where the partial line began. */
  private erase(): void {
    if (!this.drawn) return;
    const up = this.drawnPartialRows;
    this.stdout.write(`\r${up > 0 ? `\x1b[${up}A` : ''}\x1b[J`);
    this.drawn = false;
  }

  /** Draws the partial output line (if any), then the input line with the cursor in it. */
  private draw(): void {
    const { shown, cursorColumn } = this.visibleInput();
    this.drawnPartialRows = this.partial ? rowsOf(this.partial, this.columns) : 0;
    this.stdout.write(`${this.partial ? `${this.partial}\n` : ''}${shown}\r${cursorColumn > 0 ? `\x1b[${cursorColumn}C` : ''}`);
    this.drawn = true;
  }

  /** The prompt and as much of the typed text as fits in one row, around the cursor. */
  private visibleInput(): { shown: string; cursorColumn: number } {
    const room = Math.max(10, this.columns - 1);
    const prompt =
      displayWidth(this.prompt) > room / 2
        ? `${Array.from(this.prompt)
            .slice(0, Math.floor(room / 2) - 1)
            .join('')}…`
        : this.prompt;
    const space = room - displayWidth(prompt);
    let before = this.input.beforeCursor;
    let after = this.input.text.slice(before.length);
    // Keep the cursor in view: cut the start first (marked …), then the end.
    if (displayWidth(before) >= space) {
      const characters = Array.from(before);
      while (characters.length > 0 && displayWidth(characters.join('')) >= space - 1) characters.shift();
      before = `…${characters.join('')}`;
    }
    const characters = Array.from(after);
    while (characters.length > 0 && displayWidth(before) + displayWidth(characters.join('')) > space) characters.pop();
    after = characters.join('');
    return { shown: `${prompt}${before}${after}`, cursorColumn: displayWidth(prompt) + displayWidth(before) };
  }
}
