// The rule for resource ids (who a memory belongs to: `user:42`, `team:support`), shared by the
// client, users' workflows and the memory stores. Sandbox-safe.

/** The longest resource id accepted, in characters. */
export const MAX_RESOURCE_ID_LENGTH = 256;

/**
 * What is wrong with a resource id, or null when it is valid: a non-empty string of at most
 * MAX_RESOURCE_ID_LENGTH characters, without control characters or surrounding spaces. Any other
 * character is allowed (stores never use the id as a file or table name).
 */
export function resourceIdProblem(resourceId: unknown): string | null {
  if (typeof resourceId !== 'string') return `must be a string such as 'user:42' (got ${resourceId === null ? 'null' : typeof resourceId})`;
  if (resourceId.length === 0) return "must not be empty (a string such as 'user:42')";
  if (resourceId.length > MAX_RESOURCE_ID_LENGTH) return `must be at most ${MAX_RESOURCE_ID_LENGTH} characters (got ${resourceId.length})`;
  if (resourceId.trim() !== resourceId) return 'must not start or end with spaces';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(resourceId)) return 'must not contain control characters (line breaks, tabs, …)';
  return null;
}
