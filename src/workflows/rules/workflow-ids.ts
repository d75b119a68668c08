/**
 * Workflow ids of sub-agents and child agents derive from their parent's, so they grow with each
 * level of nesting. A cluster on SQL persistence refuses ids over 255 characters (the dev server
 * allows 1,000): past that, an id keeps its start and ends with a hash of the whole, so it stays
 * unique and deterministic. Pure (workflow-safe).
 */
export const MAX_WORKFLOW_ID_LENGTH = 255;

export function boundedWorkflowId(id: string): string {
  if (id.length <= MAX_WORKFLOW_ID_LENGTH) return id;
  const digest = fnv1a64(id);
  return `${id.slice(0, MAX_WORKFLOW_ID_LENGTH - digest.length - 1)}~${digest}`;
}

/** FNV-1a, 64 bits, as 16 hex digits: deterministic everywhere, no crypto module needed (ids, loop detection's call fingerprints). */
export function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let index = 0; index < text.length; index++) {
    hash ^= BigInt(text.charCodeAt(index));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}
