// The real CLI on a pseudo-terminal (util-linux `script`, no native module): keys typed in, the screen's text read back.
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Terminal } from '@xterm/headless';
import { spawnInGroup, stopProcessGroup } from './process-group';

const ROOT = path.resolve(__dirname, '..', '..');

/** `text` without terminal escape sequences and carriage returns: what the person reads, in the order it was drawn. */
export function withoutEscapes(text: string): string {
  // eslint-disable-next-line no-control-regex -- terminal escape sequences are what is removed
  return text.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/\r/g, '');
}

function shellQuoted(argument: string): string {
  return `'${argument.replace(/'/g, `'\\''`)}'`;
}

/**
 * `durable-agents ARGS` (src/cli/cli.ts under tsx) with a terminal for its standard input and
 * output, 120 columns by 40 rows: `script -qfec` gives it a pty and copies what it draws to our
 * pipe (and what we write to its keyboard). Its own process group, stopped by `stop`.
 */
export class PtyCli {
  private raw = '';
  private readonly child: ChildProcess;
  /** A terminal emulator fed what the CLI draws: the screen as a person sees it. */
  private readonly terminal = new Terminal({ cols: 120, rows: 40, allowProposedApi: true });
  /** The exit code of the CLI (script passes it on with -e). */
  readonly exited: Promise<number | null>;

  constructor(args: string[]) {
    const tsx = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
    const command = ['exec', process.execPath, '--import', tsx, path.join(ROOT, 'src/cli/cli.ts'), ...args].map((part, index) =>
      index === 0 ? part : shellQuoted(part),
    );
    this.child = spawnInGroup('script', ['-qfec', `stty cols 120 rows 40; ${command.join(' ')}`, '/dev/null'], {
      cwd: ROOT,
      env: { ...process.env, TERM: 'xterm-256color' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.raw += chunk.toString();
      this.terminal.write(chunk);
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.raw += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  /** Everything drawn so far, escapes removed. */
  get text(): string {
    return withoutEscapes(this.raw);
  }

  /** The screen now, a string a row (trailing spaces cut), and the row the cursor is on. */
  async screen(): Promise<{ rows: string[]; cursorRow: number }> {
    await new Promise<void>((resolve) => this.terminal.write('', resolve));
    const buffer = this.terminal.buffer.active;
    const rows = Array.from({ length: this.terminal.rows }, (_, row) => buffer.getLine(buffer.viewportY + row)?.translateToString(true) ?? '');
    return { rows, cursorRow: buffer.cursorY };
  }

  /** Sends keys as a terminal would (`\r` is Enter, `\x03` Ctrl-C). */
  keys(keys: string): void {
    this.child.stdin!.write(keys);
  }

  /** Types `text` key by key, `delayMs` apart, as a person does. */
  async type(text: string, delayMs = 25): Promise<void> {
    for (const key of text) {
      this.keys(key);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }

  /** Waits until `check(text)` holds (polling the screen's text), or fails naming what it waited for and the screen's end. */
  async waitFor(what: string, check: (text: string) => boolean = (text) => text.includes(what), timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check(this.text)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${JSON.stringify(what)}; the screen ends with:\n${this.text.slice(-3000)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  stop(): Promise<void> {
    this.terminal.dispose();
    return stopProcessGroup(this.child);
  }
}
