// Sub-agent dispatch: a `spawn_self` / `spawn_subagents` call's jobs run as child workflows of this run, in parallel.
import { executeChild, isCancellation, ParentClosePolicy, workflowInfo } from '@temporalio/workflow';
import { ErrorCode } from '../../protocol/errors';
import type { ToolCall } from '../../protocol/messages';
import type { ToolResult } from '../../protocol/run-types';
import { AgentNameAttribute, AgentSkillSourcesAttribute, AgentStatusAttribute } from '../../protocol/search-attributes';
import { splitInjectedArgs } from '../../protocol/split-injected-args';
import { WireName } from '../../protocol/wire-names';
import { childWorkflowId } from '../rules/child-workflow-id';
import { childCostAttributes } from '../rules/cost-attribute';
import { describeFailure } from '../rules/describe-failure';
import { childConfig, childSafeTools, childTask, outcomeOf, parseJobs, type SubagentOutcome } from '../rules/subagent-calls';
import { withInjectedArgs, workflowErrorResult, workflowToolResult } from '../rules/tool-result-builders';
import { addRunUsage } from '../rules/usage-totals';
import type { AgentRunWorkflow } from '../rules/workflow-signatures';
import { availableTools, resourceOf, type LoopState } from './loop-state';
import { configForChildren } from './run-instructions';
import { childCostLimit } from './spend-limits';

/** Sub-agent calls: each job a child workflow (visible under this run in the Web UI), in parallel. */
export async function runSubagents(state: LoopState, call: ToolCall, activityPrefix: string): Promise<ToolResult> {
  const { config, step } = state;
  const startedAt = Date.now();
  const childSafe = childSafeTools(availableTools(state), state.childUnsafeTools);
  // Injected args are no part of a job (spawn_self's arguments are its job): split off, kept in the metadata.
  const { executable, injected } = splitInjectedArgs(call.args, state.injectedArgNames);
  const parsed = parseJobs({ ...call, args: executable }, config.max_parallel_subagents, childSafe);
  if ('error' in parsed)
    return withInjectedArgs(workflowErrorResult(call, step, startedAt, `Error: ${parsed.error}`, ErrorCode.subagentRefused), injected);
  const parentId = workflowInfo().workflowId;
  // The skills watcher finds sub-agents by this attribute.
  const skillSources = config.skill_sources.length > 0 ? [{ key: AgentSkillSourcesAttribute, value: config.skill_sources }] : [];
  const outcomes = await Promise.all(
    parsed.jobs.map(async (job, index): Promise<SubagentOutcome> => {
      const workflowId = childWorkflowId(`${parentId}.${activityPrefix}.sub-${index + 1}`);
      try {
        const result = await executeChild<AgentRunWorkflow>(WireName.agentRunWorkflow, {
          workflowId,
          args: [
            {
              config: { ...childConfig(configForChildren(state), job, childSafe), ...childCostLimit(state) },
              task: childTask(job),
              timeouts: state.execution.input.timeouts,
              ...resourceOf(state),
            },
          ],
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          staticSummary: `sub-agent ${index + 1} of ${config.name}: ${job.task.slice(0, 80)}`,
          typedSearchAttributes: [
            { key: AgentNameAttribute, value: config.name },
            { key: AgentStatusAttribute, value: 'running' },
            ...skillSources,
            ...childCostAttributes(),
          ],
        });
        // The parent's usage and cost include its sub-agents'.
        addRunUsage(state.usage, result.usage);
        return outcomeOf(index, job, workflowId, result);
      } catch (error) {
        if (isCancellation(error)) throw error;
        return { job: index, task: job.task, status: 'error', error: describeFailure(error), workflow_id: workflowId };
      }
    }),
  );
  return withInjectedArgs(workflowToolResult(call, step, startedAt, Date.now(), JSON.stringify({ results: outcomes })), injected);
}
