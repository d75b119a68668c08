// A value inside a Temporal visibility query: quoted, so an id holding quotes cannot change the query.

/**
 * `value` as a quoted string of a visibility query (backslashes and single quotes escaped).
 * @example
 * `AgentName = ${visibilityString("o'brien")}`; // AgentName = 'o\'brien'
 */
export function visibilityString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
