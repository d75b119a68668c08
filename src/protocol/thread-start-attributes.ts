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
  AgentVersionAttribute,
} from './search-attributes';

/**
 * The search attributes of a thread created by its first message (`ThreadHandle.send`, a thread
 * schedule's post): its agent, `idle`, no cost yet, its last activity `now`, its skill sources and
 * resource. `AgentLastActivity` is set from the start (the thread moves it on with its own clock):
 * a namespace set up before the attribute existed refuses the start, and the sender says to rerun
 * `setup`. A named agent (`{ name }`, no config) also gets `AgentVersion`: its name now, its
 * `name@version` once the thread resolved it (which proves the namespace has the attribute).
 */
export function threadStartAttributes(
  agent: AgentConfig | { name: string },
  resourceId: string | null | undefined,
  now: Date,
): SearchAttributePair[] {
  const skillSources = 'skill_sources' in agent ? agent.skill_sources : [];
  return [
    { key: AgentNameAttribute, value: agent.name },
    { key: AgentStatusAttribute, value: 'idle' },
    { key: AgentCostUsdAttribute, value: 0 },
    { key: AgentLastActivityAttribute, value: now },
    ...('skill_sources' in agent ? [] : [{ key: AgentVersionAttribute, value: agent.name }]),
    ...(skillSources.length > 0 ? [{ key: AgentSkillSourcesAttribute, value: skillSources }] : []),
    ...(resourceId ? [{ key: AgentResourceAttribute, value: resourceId }] : []),
  ];
}
