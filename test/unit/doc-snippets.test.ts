// Every TypeScript block of the README and docs names the project file it is, so the consumer test compiles and runs it.
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { docSnippets } from '../support/doc-snippets';

const ROOT = path.resolve(__dirname, '..', '..');

describe('code blocks of README.md and docs/', () => {
  const { snippets, unnamed } = docSnippets(ROOT);

  it('name their file on the first line, so none escapes the consumer test', () => {
    expect(unnamed).toEqual([]);
    expect(snippets.filter((snippet) => snippet.language === 'ts').length).toBeGreaterThanOrEqual(8);
  });

  it('are one file each: no two blocks write the same file', () => {
    const files = snippets.map((snippet) => snippet.file);
    expect(files.filter((file, index) => files.indexOf(file) !== index)).toEqual([]);
  });

  it('say which module system they assume', () => {
    for (const snippet of snippets.filter((entry) => entry.language === 'ts')) {
      expect({ origin: snippet.origin, firstLine: snippet.code.split('\n')[0] }).toEqual({
        origin: snippet.origin,
        firstLine: expect.stringContaining('(ES module'),
      });
    }
  });
});
