// What the chat reads and writes through: a terminal with an input line of its own, or plain pipes.

/** The chat's input and output, whatever they are connected to. */
export interface ChatIo {
  /** True on a terminal: lines arrive while a turn runs, and the input line stays visible under the output. */
  readonly interactive: boolean;
  /** The next line typed (or piped); null once the input ended (Ctrl-D, end of the pipe, or `close`). */
  next(): Promise<string | null>;
  /** Output: streamed pieces or whole lines, always above the input line. */
  write(text: string): void;
  /**
   * Whole lines of the chat's own (the echo of a typed line, notes, approval questions): on a
   * terminal they go above an answer line still streaming, which goes on under them unbroken.
   */
  say(text: string): void;
  /** The words before the input (`you> `, `approve add? `). */
  setPrompt(prompt: string): void;
  /** Called on Ctrl-C (the chat decides whether that leaves). */
  onInterrupt(handler: () => void): void;
  /** Gives the terminal back (cooked mode, no input line) and ends `next`. */
  close(): void;
}

/** Lines handed out one at a time, in order, whether they come before or after they are asked for. */
export class LineQueue {
  private readonly lines: string[] = [];
  private waiting: ((line: string | null) => void) | null = null;
  private ended = false;

  next(): Promise<string | null> {
    if (this.lines.length > 0) return Promise.resolve(this.lines.shift()!);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => (this.waiting = resolve));
  }

  push(line: string): void {
    if (this.ended) return;
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting) waiting(line);
    else this.lines.push(line);
  }

  end(): void {
    this.ended = true;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.(null);
  }
}
