// Tells a start refused for missing search attributes from other start errors.
import { SearchAttributesMissingError } from '../protocol/errors';
import { AGENT_SEARCH_ATTRIBUTES } from '../protocol/search-attributes';

/**
 * The SearchAttributesMissingError for a start the namespace refused because it lacks one of the
 * runtime's search attributes (the server's words are in a cause: "… has no mapping defined for
 * search attribute AgentForkOf"), or null for any other error.
 */
export function searchAttributesMissing(error: unknown, namespace: string): SearchAttributesMissingError | null {
  const messages: string[] = [];
  for (let current: unknown = error; current instanceof Error && messages.length < 4; current = current.cause) messages.push(current.message);
  const detail = messages.find(
    (message) => /search attribute/i.test(message) && AGENT_SEARCH_ATTRIBUTES.some((attribute) => message.includes(attribute.name)),
  );
  return detail ? new SearchAttributesMissingError(namespace, detail) : null;
}
