import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes of agent runs. The dev server registers them at start
 * (`--search-attribute`), clusters through `registerSearchAttributes` (`durable-agents setup`). Safe in the workflow sandbox.
 */
export const AgentNameAttribute = defineSearchAttributeKey('AgentName', SearchAttributeType.KEYWORD);
/** running | awaiting_approval | completed */
export const AgentStatusAttribute = defineSearchAttributeKey('AgentStatus', SearchAttributeType.KEYWORD);

/** The skill sources a run follows: the watcher process finds runs to signal with it. */
export const AgentSkillSourcesAttribute = defineSearchAttributeKey('AgentSkillSources', SearchAttributeType.KEYWORD_LIST);

/** Name and type of each attribute, for registration. */
export const AGENT_SEARCH_ATTRIBUTES: ReadonlyArray<{ name: string; type: 'Keyword' | 'KeywordList' }> = [
  { name: AgentNameAttribute.name, type: 'Keyword' },
  { name: AgentStatusAttribute.name, type: 'Keyword' },
  { name: AgentSkillSourcesAttribute.name, type: 'KeywordList' },
];
