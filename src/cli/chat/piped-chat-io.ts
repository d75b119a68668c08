// The chat over pipes (a script, a test): lines in order, output as it comes, the prompt printed when a line is wanted.
import readline from 'node:readline';
import { LineQueue, type ChatIo } from './chat-io';

/**
 * Reads lines from a stream that is not a terminal. The chat asks for a line only when it is ready
 * for one (after a turn, or at an approval prompt), so piped lines are taken in turn, never sent
 * while a turn runs. Ctrl-C arrives as SIGINT.
 */
export class PipedChatIo implements ChatIo {
  readonly interactive = false;
  private readonly lines = new LineQueue();
  private readonly reader: readline.Interface;
  private prompt = '';
  private interrupt: (() => void) | null = null;
  private readonly onSignal = (): void => this.interrupt?.();

  constructor(
    input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
  ) {
    this.reader = readline.createInterface({ input, terminal: false });
    this.reader.on('line', (line) => this.lines.push(line));
    this.reader.on('close', () => this.lines.end());
    process.on('SIGINT', this.onSignal);
  }

  next(): Promise<string | null> {
    this.output.write(this.prompt);
    return this.lines.next();
  }

  write(text: string): void {
    this.output.write(text);
  }

  say(text: string): void {
    this.output.write(text);
  }

  setPrompt(prompt: string): void {
    this.prompt = prompt;
  }

  onInterrupt(handler: () => void): void {
    this.interrupt = handler;
  }

  close(): void {
    process.off('SIGINT', this.onSignal);
    this.reader.close();
    this.lines.end();
  }
}
