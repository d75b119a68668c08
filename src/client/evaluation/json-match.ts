// JSON values compared leaf by leaf, numbers within a tolerance: the `json` scorer's score.

/** Whether two numbers are equal within an absolute or a relative (to the expected one) tolerance. */
export function numbersMatch(expected: number, actual: number, absolute: number, relative: number): boolean {
  return Math.abs(expected - actual) <= Math.max(absolute, relative * Math.abs(expected));
}

/**
 * The share of leaves (strings, numbers, booleans, nulls) of `expected` that `actual` has at the
 * same place, numbers compared by `numbersEqual`; a member or element `actual` has in excess counts
 * as a leaf it got wrong, so an answer with extra fields scores below 1. The detail names the first
 * paths that differ.
 * @example
 * jsonMatchScore({ total: 10.0, items: ['a'] }, { total: 10.004, items: ['a'] }, (a, b) => Math.abs(a - b) <= 0.01); // { score: 1 }
 */
export function jsonMatchScore(
  expected: unknown,
  actual: unknown,
  numbersEqual: (expected: number, actual: number) => boolean,
): { score: number; detail?: string } {
  const differences: string[] = [];
  let leaves = 0;
  let matched = 0;
  const walk = (want: unknown, got: unknown, at: string): void => {
    if (want !== null && typeof want === 'object' && got !== null && typeof got === 'object' && Array.isArray(want) === Array.isArray(got)) {
      const wantRecord = want as Record<string, unknown>;
      const gotRecord = got as Record<string, unknown>;
      const keys = Array.isArray(want)
        ? Array.from({ length: Math.max(want.length, (got as unknown[]).length) }, (_, index) => String(index))
        : [...new Set([...Object.keys(wantRecord), ...Object.keys(gotRecord)])];
      for (const key of keys) {
        const path = Array.isArray(want) ? `${at}[${key}]` : `${at}.${key}`;
        if (!(key in wantRecord)) {
          leaves += 1;
          differences.push(`${path} is not expected`);
        } else walk(wantRecord[key], gotRecord[key], path);
      }
      return;
    }
    if (want !== null && typeof want === 'object') {
      // A whole object or array missing (or of another kind): each of its leaves is wrong.
      const count = countLeaves(want);
      leaves += count;
      differences.push(`${at || '$'}: expected ${Array.isArray(want) ? 'an array' : 'an object'}, got ${JSON.stringify(got) ?? 'nothing'}`);
      return;
    }
    leaves += 1;
    const equal = typeof want === 'number' && typeof got === 'number' ? numbersEqual(want, got) : want === got;
    if (equal) matched += 1;
    else differences.push(`${at || '$'}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got) ?? 'nothing'}`);
  };
  walk(expected, actual, '');
  const score = leaves === 0 ? 1 : matched / leaves;
  return differences.length === 0
    ? { score }
    : { score, detail: differences.slice(0, 3).join('; ') + (differences.length > 3 ? `; … ${differences.length - 3} more` : '') };
}

function countLeaves(value: unknown): number {
  if (value === null || typeof value !== 'object') return 1;
  const members = Object.values(value as Record<string, unknown>);
  return members.length === 0 ? 1 : members.reduce<number>((sum, member) => sum + countLeaves(member), 0);
}
