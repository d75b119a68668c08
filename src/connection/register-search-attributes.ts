import { temporal } from '@temporalio/proto';
import { AGENT_SEARCH_ATTRIBUTES } from '../protocol/search-attributes';

const INDEXED_VALUE_TYPE: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  KeywordList: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
  Double: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Datetime: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
};

/**
 * Registers the runtime's custom search attributes (`AgentName`, `AgentStatus`,
 * `AgentSkillSources`, `AgentForkOf`, `AgentEvaluation`, `AgentResource`, `AgentCostUsd`, `AgentLastActivity`) on a namespace if they are missing, and returns the names it added.
 * Idempotent. Run it once per cluster namespace before the first run (`durable-agents setup` does),
 * not from every worker: workers registering concurrently could make a Temporal server before 1.31
 * (seen on 1.29.1) put one attribute on two fields; from 1.31 (tried on 1.32.2) the server skips an
 * attribute the namespace already has, so a racing registration adds nothing twice (one whose
 * namespace update loses the server's version check fails UNAVAILABLE). The embedded dev server gets them at start. On Temporal Cloud,
 * add them in the namespace settings (or with `tcld`) instead: the operator API there needs an
 * admin key.
 * @example
 * import { Connection } from '@temporalio/client';
 * import { registerSearchAttributes } from 'durable-agents/worker';
 *
 * const connection = await Connection.connect({ address: 'temporal.internal:7233' });
 * console.log(await registerSearchAttributes(connection, 'default')); // e.g. ['AgentName', …]
 */
export async function registerSearchAttributes(
  connection: { operatorService: temporal.api.operatorservice.v1.OperatorService },
  namespace: string,
): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = AGENT_SEARCH_ATTRIBUTES.filter((attribute) => !known.has(attribute.name));
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((attribute) => [attribute.name, INDEXED_VALUE_TYPE[attribute.type]])),
  });
  return missing.map((attribute) => attribute.name);
}
