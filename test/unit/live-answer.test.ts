import { describe, expect, it } from '@jest/globals';
import { LiveAnswer } from '../../src/cli/live-answer';

/** A LiveAnswer whose event lines have reached `reached` (every step the tests below use, unless told). */
function printer(reached = 3) {
  let out = '';
  const answer = new LiveAnswer((text) => (out += text));
  answer.reach(reached);
  return { answer, printed: () => out };
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

  it("holds a step's words until the event lines reach that step, then shows the newest", () => {
    const { answer, printed } = printer(2);
    answer.snapshot(3, 'Tokyo ');
    answer.snapshot(3, 'Tokyo right now:');
    expect(printed()).toBe('');
    answer.reach(2);
    expect(printed()).toBe('');
    answer.reach(3);
    answer.snapshot(3, 'Tokyo right now: rain');
    expect(answer.final(3, 'Tokyo right now: rain.')).toBe(true);
    expect(printed()).toBe('  Tokyo right now: rain.\n');
  });

  it('leaves a held step to the event printer when its final text comes first', () => {
    const { answer, printed } = printer(1);
    answer.snapshot(2, 'Partial');
    expect(answer.final(2, 'Partial answer')).toBe(false);
    answer.reach(2);
    expect(printed()).toBe('');
  });
});
