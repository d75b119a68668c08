import { describe, expect, it } from '@jest/globals';
import { displayWidth, rowsOf } from '../../src/cli/chat/display-width';
import { InputLine } from '../../src/cli/chat/input-line';

function typeInto(line: InputLine, text: string): void {
  for (const character of text) line.press(character, { name: character });
}

describe('InputLine', () => {
  it('edits with the usual keys and submits the text', () => {
    const line = new InputLine();
    typeInto(line, 'hello wrld');
    for (let index = 0; index < 3; index++) line.press(undefined, { name: 'left' });
    typeInto(line, 'o');
    expect(line.text).toBe('hello world');
    expect(line.beforeCursor).toBe('hello wo');
    line.press(undefined, { name: 'e', ctrl: true });
    line.press(undefined, { name: 'w', ctrl: true });
    expect(line.text).toBe('hello ');
    expect(line.press('\r', { name: 'return' })).toBe('submit');
    expect(line.take()).toBe('hello ');
    expect(line.text).toBe('');
  });

  it('tells Ctrl-C and Ctrl-D on an empty line apart from edits', () => {
    const line = new InputLine();
    expect(line.press(undefined, { name: 'c', ctrl: true })).toBe('interrupt');
    expect(line.press(undefined, { name: 'd', ctrl: true })).toBe('end');
    typeInto(line, 'ab');
    line.press(undefined, { name: 'home' });
    expect(line.press(undefined, { name: 'd', ctrl: true })).toBe('edited');
    expect(line.text).toBe('b');
  });

  it('walks back through the lines sent with Up and Down', () => {
    const line = new InputLine();
    typeInto(line, 'first');
    line.take();
    typeInto(line, 'second');
    line.take();
    line.press(undefined, { name: 'up' });
    expect(line.text).toBe('second');
    line.press(undefined, { name: 'up' });
    expect(line.text).toBe('first');
    line.press(undefined, { name: 'down' });
    line.press(undefined, { name: 'down' });
    expect(line.text).toBe('');
  });

  it('keeps code points whole and turns pasted newlines into spaces', () => {
    const line = new InputLine();
    line.press('😀\nb', {});
    line.press(undefined, { name: 'backspace' });
    expect(line.text).toBe('😀 ');
  });
});

describe('displayWidth', () => {
  it('counts wide characters twice and escapes not at all', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本')).toBe(4);
    expect(displayWidth('\x1b[31mred\x1b[0m')).toBe(3);
    expect(rowsOf('x'.repeat(120), 120)).toBe(1);
    expect(rowsOf('x'.repeat(121), 120)).toBe(2);
    expect(rowsOf('', 120)).toBe(1);
  });
});
