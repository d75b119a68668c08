import type { AgentConfig } from '../../config/agent-config';
import type { JsonSchema, ToolCall } from '../../protocol/messages';
import type { AgentRunResult } from '../../protocol/run-types';
import { READ_ARTIFACT_TOOL, SPAWN_PARALLEL_TOOL, SPAWN_SELF_TOOL } from '../../protocol/wire-names';

/**
 * The rules of sub-agents, pure: parsing jobs from a tool call, the child-safe tool set, the strict
 * subset check, the child's config, and the per-job outcome. The workflow runs each job as a child
 * workflow.
 */

export interface SubagentJob {
  task: string;
  /** An agent the workers define (one of the config's `subagents`): the child runs it, not a copy of this agent. */
  agent?: string;
  additional_context?: string;
  tool_names?: string[];
  output_schema?: JsonSchema;
  system_prompt?: string;
}

export type SubagentOutcome =
  | { job: number; task: string; status: 'success'; output: string; structured_output?: unknown; steps: number; workflow_id: string }
  | { job: number; task: string; status: 'error'; error: string; workflow_id: string };

/** The hard cap of the seeds, whatever the config says. */
export const MAX_PARALLEL_SUBAGENTS = 7;

const SUBAGENT_TOOLS = [SPAWN_SELF_TOOL, SPAWN_PARALLEL_TOOL];

export function isSubagentTool(name: string): boolean {
  return SUBAGENT_TOOLS.includes(name);
}

/**
 * Tools a child may be given: the parent's, minus the sub-agent tools themselves and the tools
 * the worker declares not child-safe.
 */
export function childSafeTools(activeTools: readonly string[], childUnsafe: readonly string[] = []): string[] {
  return activeTools.filter((name) => !isSubagentTool(name) && name !== READ_ARTIFACT_TOOL && !childUnsafe.includes(name));
}

/**
 * The jobs of a sub-agent call, or why the call is refused (the model sees the reason). A job may
 * name an agent of `subagents` (the config's); it then takes none of the fields that shape a copy
 * of this agent (`tool_names`, `output_schema`, `system_prompt`): the named agent has its own.
 * Without `subagents`, a job's `agent` is ignored (as before they existed: no patch needed).
 */
export function parseJobs(
  call: ToolCall,
  maxParallel: number,
  childSafe: readonly string[],
  subagents: readonly string[] = [],
): { jobs: SubagentJob[] } | { error: string } {
  const rawJobs = call.name === SPAWN_SELF_TOOL ? [call.args] : (call.args.jobs as unknown);
  if (!Array.isArray(rawJobs) || rawJobs.length === 0) return { error: `${call.name}: 'jobs' must be a non-empty list` };
  const limit = Math.min(maxParallel, MAX_PARALLEL_SUBAGENTS);
  if (rawJobs.length > limit) {
    return {
      error: `${call.name}: ${rawJobs.length} jobs requested, but max_parallel_subagents is ${limit}; split the work into at most ${limit} jobs`,
    };
  }
  const jobs: SubagentJob[] = [];
  for (const [index, raw] of rawJobs.entries()) {
    const label = call.name === SPAWN_SELF_TOOL ? call.name : `${call.name}: jobs[${index}]`;
    if (!raw || typeof raw !== 'object') return { error: `${label} must be an object` };
    // An agent without `subagents` (every run recorded before they existed) reads its jobs as it
    // always did: a job's `agent` is no field of its schema, and is ignored.
    const { agent: _ignored, ...unnamed } = raw as Record<string, unknown>;
    const job = subagents.length > 0 ? (raw as Record<string, unknown>) : unnamed;
    if (typeof job.task !== 'string' || !job.task.trim()) return { error: `${label}.task must be a non-empty string` };
    for (const field of ['additional_context', 'system_prompt'] as const) {
      if (job[field] !== undefined && typeof job[field] !== 'string') return { error: `${label}.${field} must be a string` };
    }
    if (
      job.output_schema !== undefined &&
      (typeof job.output_schema !== 'object' || job.output_schema === null || Array.isArray(job.output_schema))
    ) {
      return { error: `${label}.output_schema must be a JSON Schema object` };
    }
    if (job.agent !== undefined) {
      const refusal = namedJobRefusal(call.name, job, subagents);
      if (refusal) return { error: `${label}.agent ${refusal}` };
    }
    if (job.tool_names !== undefined) {
      const refusal = subsetRefusal(job.tool_names, childSafe);
      if (refusal) return { error: `${label}.tool_names ${refusal}` };
    }
    jobs.push(job as unknown as SubagentJob);
  }
  return { jobs };
}

/** Why a job's `agent` cannot run, or null when it can. */
function namedJobRefusal(tool: string, job: Record<string, unknown>, subagents: readonly string[]): string | null {
  if (tool === SPAWN_SELF_TOOL) return `cannot be given: ${SPAWN_SELF_TOOL} runs a copy of this agent; name agents in ${SPAWN_PARALLEL_TOOL} jobs`;
  if (typeof job.agent !== 'string' || !subagents.includes(job.agent)) {
    return `'${String(job.agent)}' is not an agent this agent may delegate to (its subagents: ${subagents.join(', ') || 'none'})`;
  }
  const shaping = (['tool_names', 'output_schema', 'system_prompt'] as const).filter((field) => job[field] !== undefined);
  if (shaping.length > 0) return `'${job.agent}' cannot go with ${shaping.join(', ')}: a named agent has its own tools, instructions and output`;
  return null;
}

/** Why `requested` is not a strict subset of the child-safe tools, or null when it is. */
export function subsetRefusal(requested: unknown, childSafe: readonly string[]): string | null {
  if (!Array.isArray(requested) || requested.some((name) => typeof name !== 'string')) return 'must be a list of tool names';
  const unknown = requested.filter((name) => !childSafe.includes(name));
  if (unknown.length > 0) return `names tools a sub-agent may not have: ${unknown.join(', ')} (child-safe tools: ${childSafe.join(', ') || 'none'})`;
  const distinct = new Set(requested);
  if (distinct.size >= childSafe.length) {
    return `must be a strict subset of the child-safe tools (${childSafe.join(', ')}); omit tool_names to give the sub-agent all of them`;
  }
  return null;
}

/** The child's config: the parent's, narrowed by the job. The parent's config is not touched. */
export function childConfig(parent: AgentConfig, job: SubagentJob, childSafe: readonly string[]): AgentConfig {
  const tools = job.tool_names ? [...new Set(job.tool_names)] : [...childSafe];
  const child: AgentConfig = {
    ...parent,
    instructions: job.system_prompt?.trim() ? `${job.system_prompt.trim()}\n\n${parent.instructions}`.trim() : parent.instructions,
    tools,
    hitl_tools: parent.hitl_tools.filter((name) => tools.includes(name)),
    output_type: job.output_schema ?? null,
    planning_enabled: false,
    allow_parallel_subagents: false,
    injected_tool_args: { ...parent.injected_tool_args },
    // The memory tools are among the parent's tools, so the job's tool list already says whether
    // the child has them: `memory: true` would add them all back.
    ...(parent.memory ? { memory: false } : {}),
  };
  // A sub-agent runs within its parent's concurrency slot: waiting for a slot of the cap the parent
  // holds would deadlock a cap of 1.
  if (parent.max_concurrent_runs !== undefined) delete child.max_concurrent_runs;
  // A copy has no sub-agent tool (childSafeTools), so no sub-agents by name either.
  if (parent.subagents !== undefined) delete child.subagents;
  return child;
}

export function childTask(job: SubagentJob): string {
  return job.additional_context?.trim() ? `${job.task}\n\nContext:\n${job.additional_context.trim()}` : job.task;
}

/** A child's result as a job outcome: only a completed run (with valid output, if asked) succeeds. */
export function outcomeOf(index: number, job: SubagentJob, workflowId: string, result: AgentRunResult): SubagentOutcome {
  if (result.stopReason !== 'completed') {
    return {
      job: index,
      task: job.task,
      status: 'error',
      error: `the sub-agent stopped (${result.stopReason}): ${result.stopDetail ?? ''}`.trim(),
      workflow_id: workflowId,
    };
  }
  return {
    job: index,
    task: job.task,
    status: 'success',
    output: result.output,
    ...(result.structuredOutput !== undefined ? { structured_output: result.structuredOutput } : {}),
    steps: result.steps,
    workflow_id: workflowId,
  };
}
