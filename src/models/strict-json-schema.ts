import type { JsonSchema } from '../protocol/messages';

/**
 * Whether OpenAI's strict structured-output mode accepts this schema: every object closes its
 * properties (`additionalProperties: false`) and requires all of them. Strict mode refuses other
 * schemas with a 400, so for those the request asks for JSON matching the schema without strict
 * decoding, and the activity's own validation still checks the answer.
 */
export function isStrictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictCompatible);
  if (!schema || typeof schema !== 'object') return true;
  const node = schema as JsonSchema & Record<string, unknown>;
  const properties = node.properties as Record<string, unknown> | undefined;
  if (node.type === 'object' || properties) {
    if (node.additionalProperties !== false) return false;
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    if (Object.keys(properties ?? {}).some((name) => !required.has(name))) return false;
  }
  const children = [
    ...Object.values(properties ?? {}),
    node.items,
    ...['anyOf', 'allOf', 'oneOf'].flatMap((key) => (Array.isArray(node[key]) ? (node[key] as unknown[]) : [])),
    ...Object.values((node.$defs ?? node.definitions ?? {}) as Record<string, unknown>),
  ];
  return children.every(isStrictCompatible);
}
