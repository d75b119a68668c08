import { z } from 'zod';
import { SPAWN_PARALLEL_TOOL, SPAWN_SELF_TOOL } from '../protocol/wire-names';
import { defineTool, type Tool } from './define-tool';

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

export const spawnParallelTool: Tool = defineTool({
  name: SPAWN_PARALLEL_TOOL,
  description: 'Runs several sub-agents at once, one per job, and returns a structured result per job.',
  parameters: z.object({
    jobs: z.array(z.object({ ...job, system_prompt: z.string().optional().describe('Framing for this sub-agent') })).min(1),
  }),
  execute: handledByWorkflow,
});

export const subagentTools: Tool[] = [spawnSelfTool, spawnParallelTool];
