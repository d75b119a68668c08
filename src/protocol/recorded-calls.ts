/**
 * Matching tool calls against recorded ones, for replay evaluation: a call matches a recorded call
 * with the same tool name and the same arguments as canonical JSON (object keys sorted, so the
 * order a model writes them in does not matter). The nth call with a key gets the nth recorded
 * result with it. Pure: shared by the workflow, the worker and the client's report.
 */

/** JSON with object keys sorted at every level; `undefined` members dropped as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, member]) => member !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
}

/** The key a tool call is matched by: its tool and its canonical arguments. */
export function toolCallKey(name: string, args: unknown): string {
  return `${name}(${canonicalJson(args ?? {})})`;
}

/**
 * For calls in the order a run made them: whether each found a recorded call (the nth call with
 * a key matches when the recording has at least n calls with it).
 */
export function matchRecordedCalls(recordedKeys: readonly string[], callKeys: readonly string[]): boolean[] {
  const available = new Map<string, number>();
  for (const key of recordedKeys) available.set(key, (available.get(key) ?? 0) + 1);
  const used = new Map<string, number>();
  return callKeys.map((key) => {
    const occurrence = (used.get(key) ?? 0) + 1;
    used.set(key, occurrence);
    return occurrence <= (available.get(key) ?? 0);
  });
}
