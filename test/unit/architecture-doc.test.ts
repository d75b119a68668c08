import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';

/**
 * docs/architecture.md describes the code by folder, so it must keep up with the folders.
 * The rule: every directory under src/ (at any depth) has a row of its own, that is, it is
 * written as `src/<path>/` (in backticks, with the trailing slash) in the first cell of a
 * Markdown table row. A folder added without a row fails here. The other way round: every
 * `src/...` path the page writes in backticks, folder or file, exists (a glob such as
 * `*workflow-interceptors.ts` is not a path and is not checked).
 */

const ROOT = path.resolve(__dirname, '..', '..');
const DOC = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');

function srcFolders(relative: string): string[] {
  return readdirSync(path.join(ROOT, relative), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const folder = `${relative}/${entry.name}`;
      return [folder, ...srcFolders(folder)];
    });
}

/** The `src/...` paths in backticks in the first cell of each table row. */
function rowFolders(markdown: string): Set<string> {
  const folders = new Set<string>();
  for (const line of markdown.split('\n')) {
    const firstCell = /^\|([^|]*)\|/.exec(line)?.[1];
    if (firstCell === undefined) continue;
    for (const match of firstCell.matchAll(/`(src\/[^`]*\/)`/g)) folders.add(match[1]!);
  }
  return folders;
}

describe('docs/architecture.md', () => {
  it('has a table row for every folder under src/', () => {
    const rows = rowFolders(DOC);
    const missing = srcFolders('src').filter((folder) => !rows.has(`${folder}/`));
    expect(missing).toEqual([]);
  });

  it('names only src/ paths that exist', () => {
    const named = [...DOC.matchAll(/`(src\/[^`\s]*)`/g)].map((match) => match[1]!).filter((named) => !named.includes('*'));
    expect(named.length).toBeGreaterThan(0);
    const absent = named.filter((named) => !existsSync(path.join(ROOT, named)));
    expect(absent).toEqual([]);
  });

  it('reads its row rule correctly', () => {
    const rows = rowFolders('| `src/a/`, `src/b/` | x |\n| `src/c` | no slash |\n| text | `src/d/` in a later cell |');
    expect([...rows]).toEqual(['src/a/', 'src/b/']);
  });
});
