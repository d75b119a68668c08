import { z } from 'zod';
import { SPAWN_PARALLEL_TOOL, SPAWN_SELF_TOOL } from '../protocol/wire-names';
import type { ToolSpec } from '../protocol/messages';
import { defineTool, toModelJsonSchema, type Tool } from './define-tool';

/**
 * The sub-agent tools as the model sees them. The workflow carries them out (each job is a child
 * workflow), so `execute` is never called on a worker.
 */
const job = {
  task: z.string().min(1).describe('What the sub-agent must do'),
  additional_context: z.string().optional().describe('Facts the sub-agent needs'),
  tool_names: z.array(z.string()).optional().describe("A strict subset of this agent's tools for the sub-agent"),
  output_schema: z.record(z.string(), z.unknown()).optional().describe('JSON Schema the sub-agent answer must match'),
};

const handledByWorkflow = () => {
  throw new Error('sub-agent tools are carried out by the agent workflow, not by a worker');
};

export const spawnSelfTool: Tool = defineTool({
  name: SPAWN_SELF_TOOL,
  description: 'Runs one sub-agent (a copy of this agent) on a task and returns its answer.',
  parameters: z.object(job),
  execute: handledByWorkflow,
});

/** `spawn_subagents`' parameters; with `agents`, a job may name one of them (`agent`). */
function parallelParameters(agents: readonly string[] = []) {
  const named =
    agents.length > 0
      ? {
          agent: z
            .enum(agents as [string, ...string[]])
            .optional()
            .describe('An agent to run instead of a copy of this one (it has its own instructions and tools: give no tool_names)'),
        }
      : {};
  return z.object({
    jobs: z.array(z.object({ ...job, system_prompt: z.string().optional().describe('Framing for this sub-agent'), ...named })).min(1),
  });
}

export const spawnParallelTool: Tool = defineTool({
  name: SPAWN_PARALLEL_TOOL,
  description: 'Runs several sub-agents at once, one per job, and returns a structured result per job.',
  parameters: parallelParameters(),
  execute: handledByWorkflow,
});

const namedSpecs = new Map<string, ToolSpec>();

/**
 * `spawn_subagents` as an agent with sub-agents by name (its config's `subagents`) sees it: each
 * job may name one of `agents`, an enum of them. Built once per list of names.
 * @example
 * spawnParallelSpecWithAgents(['researcher']).parameters; // jobs[].agent: { enum: ['researcher'] }
 */
export function spawnParallelSpecWithAgents(agents: readonly string[]): ToolSpec {
  const key = JSON.stringify(agents);
  let spec = namedSpecs.get(key);
  if (!spec) {
    spec = {
      name: SPAWN_PARALLEL_TOOL,
      description: `${spawnParallelTool.description} A job that names an \`agent\` runs that agent instead of a copy of this one.`,
      parameters: toModelJsonSchema(parallelParameters(agents)),
    };
    namedSpecs.set(key, spec);
  }
  return structuredClone(spec);
}

export const subagentTools: Tool[] = [spawnSelfTool, spawnParallelTool];
