import type { AgentConfig } from './agent-config';
import { DEFAULT_LOOP_DETECTION } from './agent-config-rules';
import { parseDuration } from './duration';
import type { RunTimeouts } from '../protocol/run-types';

/**
 * Fills fields that were added to AgentConfig after runs were already started with older
 * versions: a workflow replaying such a run gets a config without them. Pure (workflow-safe);
 * every field added from now on needs its default here.
 */
export function upgradeConfig(config: AgentConfig): AgentConfig {
  return {
    ...config,
    hitl_timeout: config.hitl_timeout ?? '24h',
    context_window: config.context_window ?? null,
    offload_threshold: config.offload_threshold ?? 16_000,
    mcp_servers: config.mcp_servers ?? [],
    skill_sources: config.skill_sources ?? [],
    skills: config.skills ?? null,
    instructions_builder: config.instructions_builder ?? 'skill-list',
    timeouts: config.timeouts ?? {},
    memory: config.memory ?? false,
    loop_detection: config.loop_detection ?? { ...DEFAULT_LOOP_DETECTION },
    tool_policies: config.tool_policies ?? [],
    instructions_provider: config.instructions_provider ?? null,
    hook_errors: config.hook_errors ?? 'fail',
  };
}

/**
 * The config's `timeouts` in milliseconds, only those it sets: a run's timeouts are the defaults,
 * then these, then the run's own (`startRun({ timeouts })`). Pure (workflow-safe); the config must
 * be validated (its durations are).
 */
export function configTimeouts(config: Pick<AgentConfig, 'timeouts'>): Partial<RunTimeouts> {
  const timeouts = config.timeouts ?? {};
  return {
    ...(timeouts.model_step !== undefined ? { modelStepMs: parseDuration(timeouts.model_step) } : {}),
    ...(timeouts.tool !== undefined ? { toolMs: parseDuration(timeouts.tool) } : {}),
    ...(timeouts.heartbeat !== undefined ? { heartbeatMs: parseDuration(timeouts.heartbeat) } : {}),
  };
}
