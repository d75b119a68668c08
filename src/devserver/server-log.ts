import { createWriteStream, type WriteStream } from 'node:fs';
import type { Readable } from 'node:stream';

/**
 * The dev server's own output, kept while it runs: its last lines (to explain a start that failed
 * or never served) and, when `TEMPORAL_DEV_SERVER_LOG` names a file, all of it appended there.
 */
export class ServerLog {
  private readonly lines: string[] = [];
  private readonly partial = new Map<Readable, string>();
  private readonly file: WriteStream | null;

  constructor(
    private readonly keep = 40,
    filePath: string | undefined = process.env.TEMPORAL_DEV_SERVER_LOG,
  ) {
    this.file = filePath ? createWriteStream(filePath, { flags: 'a' }) : null;
  }

  /** Reads a stream of the server (stdout or stderr) until it ends. */
  follow(stream: Readable | null): void {
    if (!stream) return;
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      this.file?.write(chunk);
      const text = (this.partial.get(stream) ?? '') + chunk;
      const parts = text.split(/\r?\n/);
      this.partial.set(stream, parts.pop() ?? '');
      for (const line of parts) this.add(line);
    });
    stream.on('end', () => {
      const rest = this.partial.get(stream);
      if (rest) this.add(rest);
      this.partial.delete(stream);
    });
  }

  /** The last lines the server wrote (those not ended by a newline yet included). */
  tail(): string[] {
    const pending = [...this.partial.values()].filter((line) => line.trim() !== '');
    return [...this.lines, ...pending].slice(-this.keep);
  }

  close(): void {
    this.file?.end();
  }

  private add(line: string): void {
    if (line.trim() === '') return;
    this.lines.push(line);
    if (this.lines.length > this.keep) this.lines.shift();
  }
}
