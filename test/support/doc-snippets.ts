// The code blocks of README.md and docs/*.md that are files of a project, read out so the consumer test can compile and run them.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface DocSnippet {
  /** The file it is in the reader's project, from its first line (`// src/worker.ts (ES module)`, `# payments.yaml`). */
  file: string;
  language: 'ts' | 'yaml';
  code: string;
  /** Where it is written, `docs/durability.md:39`. */
  origin: string;
}

/** A TypeScript (or JavaScript) block whose first line does not name its file: it would go untested. */
export interface UnnamedSnippet {
  origin: string;
  firstLine: string;
}

const FILE_MARKERS = { ts: /^\/\/ (src\/[\w./-]+\.ts)\b/, yaml: /^# ([\w./-]+\.ya?ml)\s*$/ } as const;

/** README.md and every docs/*.md of the repository at `root`. */
export function documentationFiles(root: string): string[] {
  const docs = readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort();
  return ['README.md', ...docs.map((name) => path.join('docs', name))];
}

/**
 * The blocks that name their file: every ```ts block must (the others are reported in `unnamed`);
 * a ```yaml block that does and has a `name:` is an agent config the reader saves under that name.
 */
export function docSnippets(root: string): { snippets: DocSnippet[]; unnamed: UnnamedSnippet[] } {
  const snippets: DocSnippet[] = [];
  const unnamed: UnnamedSnippet[] = [];
  for (const file of documentationFiles(root)) {
    const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
    for (let index = 0; index < lines.length; index++) {
      // Any TypeScript or JavaScript fence counts as TypeScript: a "typescript" or "js" fence must not slip past.
      const fence = /^```(ts|typescript|tsx|js|javascript|mjs|cjs|yaml|yml)\s*$/.exec(lines[index]!)?.[1];
      if (!fence) continue;
      const language: 'ts' | 'yaml' = fence === 'yaml' || fence === 'yml' ? 'yaml' : 'ts';
      const end = lines.findIndex((line, at) => at > index && line.startsWith('```'));
      const body = lines.slice(index + 1, end);
      const origin = `${file}:${index + 1}`;
      const named = FILE_MARKERS[language].exec(body[0] ?? '')?.[1];
      const code = `${body.join('\n')}\n`;
      // A named YAML block is an agent config when it has a name; scripts (docs/scripted-model.md) are not run.
      if (named && (language === 'ts' || /^name:\s/m.test(code))) snippets.push({ file: named, language, code, origin });
      else if (language === 'ts') unnamed.push({ origin, firstLine: body[0] ?? '' });
      index = end;
    }
  }
  return { snippets, unnamed };
}
