// The search attributes a new thread starts with: one list for a client's first message and a schedule's post. Sandbox-safe.
import type { SearchAttributePair } from '@temporalio/common';
import type { AgentConfig } from '../config/agent-config';
import {
  AgentCostUsdAttribute,
  AgentLastActivityAttribute,
  AgentNameAttribute,
  AgentResourceAttribute,
  AgentSkillSourcesAttribute,
  AgentStatusAttribute,
} from './search-attributes';

/**
 * The search attributes of a thread created by its first message (`ThreadHandle.send`, a thread
 * schedule's post): its agent, `idle`, no cost yet, its last activity `now`, its skill sources and
 * resource. `AgentLastActivity` is set from the start (the thread moves it on with its own clock):
 * a namespace set up before the attribute existed refuses the start, and the sender says to rerun
 * `setup`.
 */
export function threadStartAttributes(config: AgentConfig, resourceId: string | null | undefined, now: Date): SearchAttributePair[] {
  return [
    { key: AgentNameAttribute, value: config.name },
    { key: AgentStatusAttribute, value: 'idle' },
    { key: AgentCostUsdAttribute, value: 0 },
    { key: AgentLastActivityAttribute, value: now },
    ...(config.skill_sources.length > 0 ? [{ key: AgentSkillSourcesAttribute, value: config.skill_sources }] : []),
    ...(resourceId ? [{ key: AgentResourceAttribute, value: resourceId }] : []),
  ];
}
