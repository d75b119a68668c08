// What a CLI command function printed with console.log, for tests that call commands in-process.
import { jest } from '@jest/globals';

/** Runs `fn` with console.log captured; returns the printed lines joined by newlines. */
export async function printed(fn: () => Promise<void>): Promise<string> {
  const lines: string[] = [];
  const spy = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return lines.join('\n');
}
