import { temporal } from '@temporalio/proto';
import { AGENT_SEARCH_ATTRIBUTES } from '../shared/search-attributes';

const INDEXED_VALUE_TYPE: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  KeywordList: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/**
 * Registers the runtime's custom search attributes on a namespace if they are missing (the dev
 * server gets them at start; a cluster gets them here, once). Idempotent.
 */
export async function ensureSearchAttributes(
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
