import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { importCircles, importGraph } from '../support/import-graph';

/**
 * Files that import each other in a circle (type-only imports count) can only be read, moved and
 * tested together. Small ones are allowed, at most three files (a type and its helper); a bigger circle means a type
 * or a function sits in the wrong module (move it down into a module both sides import).
 */
const MAX_CIRCLE_FILES = 3;

const SRC = path.resolve(__dirname, '..', '..', 'src');

describe('import circles in src/', () => {
  it(`has none of more than ${MAX_CIRCLE_FILES} files`, () => {
    const tooBig = importCircles(importGraph(SRC))
      .filter((circle) => circle.length > MAX_CIRCLE_FILES)
      .map((circle) => circle.map((file) => path.relative(SRC, file)));
    // On failure the diff lists each circle's files.
    expect(tooBig).toEqual([]);
  });
});

describe('importCircles', () => {
  let scratch: string;

  beforeAll(() => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'import-circles-'));
  });

  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  /** A folder of files: a ring of four through each kind of import the graph reads, and a leaf outside it; `d.ts` closes the ring. */
  function ring(name: string, dCode: string): string {
    const folder = path.join(scratch, name);
    mkdirSync(folder);
    const files: Record<string, string> = {
      'a.ts': "import type { B } from './b';\nimport { leaf } from './leaf';\nexport type A = B | typeof leaf;\n",
      'b.ts': "export type { C as B } from './c.js';\n",
      'c.ts': "export type C = typeof import('./d');\n",
      'd.ts': dCode,
      'leaf.ts': 'export const leaf = 1;\n',
    };
    for (const [file, code] of Object.entries(files)) writeFileSync(path.join(folder, file), code);
    return folder;
  }

  it('finds four files importing in a ring, and not the file they import outside it', () => {
    const folder = ring('closed', "import { leaf } from './leaf';\nimport type { A } from './a';\nexport const d: A = leaf;\n");
    const circles = importCircles(importGraph(folder)).map((circle) => circle.map((file) => path.relative(folder, file)));
    expect(circles).toEqual([['a.ts', 'b.ts', 'c.ts', 'd.ts']]);
  });

  it('finds none when one import of the ring is missing', () => {
    const folder = ring('open', 'export const d = 1;\n');
    expect(importCircles(importGraph(folder))).toEqual([]);
  });
});
