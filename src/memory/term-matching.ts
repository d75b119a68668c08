// Simple term matching for the folder memory store's recall: words of the query against the words
// of each entry, scored by how many of the query's words an entry contains. Pure.
import type { MemoryEntry } from './memory-store';

/**
 * Words too common to tell entries apart (PostgreSQL's English configuration drops these too), so
 * "what does the user like" looks for "user" and "like".
 */
const STOP_WORDS = new Set(
  'a an and are as at be but by did do does for from had has have he her his how i if in is it its me my not of on or our she so than that the their them then there they this to was we were what when where which who why will with you your'.split(
    ' ',
  ),
);

/** The shortest common start two words need to count as one (`prefer` / `preferred`, `coffee` / `coffees`). */
const SHARED_PREFIX_CHARACTERS = 4;

/** The distinct lowercase words of a text (letters and digits of any script), without stop words. */
export function termsOf(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((word) => !STOP_WORDS.has(word)))];
}

/** Whether two words count as the same term: equal, or one starts the other and shares at least SHARED_PREFIX_CHARACTERS with it. */
function sameTerm(queryTerm: string, entryWord: string): boolean {
  if (queryTerm === entryWord) return true;
  const [shorter, longer] = queryTerm.length <= entryWord.length ? [queryTerm, entryWord] : [entryWord, queryTerm];
  return shorter.length >= SHARED_PREFIX_CHARACTERS && longer.startsWith(shorter);
}

/** How many of the query's terms the entry (text and tags) contains. */
export function matchScore(queryTerms: readonly string[], entry: Pick<MemoryEntry, 'text' | 'tags'>): number {
  const words = termsOf(`${entry.text} ${entry.tags.join(' ')}`);
  return queryTerms.filter((term) => words.some((word) => sameTerm(term, word))).length;
}

/**
 * The entries that match the query, best first: more of the query's terms, then newer, then by
 * id (a stable order). An empty query (or one of stop words only: nothing to look for) matches
 * nothing unless `query` is empty, which lists the newest.
 */
export function rankEntries(entries: readonly MemoryEntry[], query: string, limit: number): MemoryEntry[] {
  const newestFirst = (a: MemoryEntry, b: MemoryEntry) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id);
  if (!query.trim()) return [...entries].sort(newestFirst).slice(0, limit);
  const terms = termsOf(query);
  return entries
    .map((entry) => ({ entry, score: matchScore(terms, entry) }))
    .filter(({ score }) => score > 0)
    .sort((a, b) => b.score - a.score || newestFirst(a.entry, b.entry))
    .slice(0, limit)
    .map(({ entry }) => entry);
}
