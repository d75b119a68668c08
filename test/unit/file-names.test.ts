import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';

/**
 * A file's name says what it holds, so no name is used in two folders of src/: a search, a stack
 * trace or an editor tab then names one file. `index.ts` is the exception: it is a folder's entry
 * point, named by convention, not by its contents.
 */

const SRC = path.resolve(__dirname, '..', '..', 'src');
const ENTRY_POINT = 'index.ts';

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('file names in src/', () => {
  it('are used once each (index.ts aside)', () => {
    const byName = new Map<string, string[]>();
    for (const file of sourceFiles(SRC)) {
      const name = path.basename(file);
      if (name !== ENTRY_POINT) byName.set(name, [...(byName.get(name) ?? []), path.relative(SRC, file)]);
    }
    expect(byName.size).toBeGreaterThan(100);
    const repeated = [...byName.values()].filter((files) => files.length > 1);
    expect(repeated).toEqual([]);
  });
});
