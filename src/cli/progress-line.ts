/**
 * A one-line spinner for terminals ("⠹ step 2: model is thinking 3.1 s"), redrawn in place and
 * cleared before other output. Does nothing when stdout is not a TTY (pipes, CI, --json).
 */
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export class ProgressLine {
  private label: string | null = null;
  private since = 0;
  private frame = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly stream: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout) {}

  private get enabled(): boolean {
    return Boolean(this.stream.isTTY);
  }

  /** Shows `label` with a spinner and the time since it was set. */
  set(label: string): void {
    if (!this.enabled) return;
    this.label = label;
    this.since = Date.now();
    this.timer ??= setInterval(() => this.draw(), 100);
    this.draw();
  }

  /** Clears the line (call before printing anything else). */
  clear(): void {
    if (!this.enabled || this.label === null) return;
    this.stream.write('\r\x1b[2K');
  }

  /** Prints a line above the spinner. */
  print(line: string): void {
    this.clear();
    this.stream.write(`${line}\n`);
    if (this.label !== null) this.draw();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.clear();
    this.label = null;
  }

  private draw(): void {
    if (this.label === null) return;
    const seconds = ((Date.now() - this.since) / 1000).toFixed(1);
    this.stream.write(`\r\x1b[2K${FRAMES[this.frame++ % FRAMES.length]} ${this.label} ${seconds} s`);
  }
}
