import { describe, expect, it } from '@jest/globals';
import { LiveAnswer } from '../src/client/live-answer';

function printer() {
  let out = '';
  return { answer: new LiveAnswer((text) => (out += text)), printed: () => out };
}

describe('LiveAnswer (how run --follow prints streamed answers)', () => {
  it('prints only what each snapshot adds, indented, and nothing more for the final text', () => {
    const { answer, printed } = printer();
    answer.snapshot(1, 'Hel');
    answer.snapshot(1, 'Hello');
    answer.snapshot(1, 'Hello\nworld');
    expect(answer.final(1, 'Hello\nworld.')).toBe(true);
    expect(printed()).toBe('  Hello\n  world.\n');
  });

  it('leaves the final text to the event printer when nothing was streamed', () => {
    const { answer, printed } = printer();
    expect(answer.final(2, 'Whole answer')).toBe(false);
    expect(printed()).toBe('');
  });

  it('ignores snapshots that arrive after the final text, and a retry that repeats what was shown', () => {
    const { answer, printed } = printer();
    answer.snapshot(1, 'Same words');
    answer.snapshot(1, 'Same'); // attempt 2 catching up
    answer.snapshot(1, 'Same words and more');
    answer.final(1, 'Same words and more.');
    answer.snapshot(1, 'Same words and more.');
    expect(printed()).toBe('  Same words and more.\n');
  });

  it('marks a retry whose text departs from what was shown, then prints the new text once', () => {
    const { answer, printed } = printer();
    answer.snapshot(3, 'First try');
    answer.snapshot(3, 'Second');
    answer.final(3, 'Second try, done.');
    expect(printed()).toBe('  First try\n  ↻ step 3 was retried; its answer starts again:\n  Second try, done.\n');
  });

  it('ends an open line before another line is printed', () => {
    const { answer, printed } = printer();
    answer.snapshot(1, 'Thinking');
    answer.endLine();
    answer.endLine();
    answer.snapshot(1, 'Thinking aloud');
    expect(printed()).toBe('  Thinking\n   aloud');
  });
});
