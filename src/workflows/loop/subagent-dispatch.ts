// Sub-agent dispatch: a `spawn_self` / `spawn_subagents` call's jobs run as child workflows of this run, in parallel.
import type { SearchAttributePair } from '@temporalio/common';
import { executeChild, isCancellation, ParentClosePolicy, proxyLocalActivities, workflowInfo, type ChildWorkflowOptions } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import { ErrorCode } from '../../protocol/errors';
import type { ToolCall } from '../../protocol/messages';
import type { AgentRunWorkflowInput, ToolResult } from '../../protocol/run-types';
import { AgentNameAttribute, AgentSkillSourcesAttribute, AgentStatusAttribute, AgentVersionAttribute } from '../../protocol/search-attributes';
import { splitInjectedArgs } from '../../protocol/split-injected-args';
import { WireName } from '../../protocol/wire-names';
import { childWorkflowId } from '../rules/child-workflow-id';
import { childCostAttributes } from '../rules/cost-attribute';
import { describeFailure } from '../rules/describe-failure';
import { childConfig, childSafeTools, childTask, outcomeOf, parseJobs, type SubagentJob, type SubagentOutcome } from '../rules/subagent-calls';
import { withInjectedArgs, workflowErrorResult, workflowToolResult } from '../rules/tool-result-builders';
import { addRunUsage } from '../rules/usage-totals';
import type { AgentRunWorkflow } from '../rules/workflow-signatures';
import { availableTools, resourceOf, type LoopState } from './loop-state';
import { configForChildren } from './run-instructions';
import { childCostLimit } from './spend-limits';

/**
 * Sub-agent calls: each job a child workflow (visible under this run in the Web UI), in parallel: a
 * copy of this agent narrowed by the job, or, for a job that names one of the config's `subagents`,
 * that agent, which the child resolves on its workers and records in its own history.
 */
export async function runSubagents(state: LoopState, call: ToolCall, activityPrefix: string): Promise<ToolResult> {
  const { config, step } = state;
  const startedAt = Date.now();
  const childSafe = childSafeTools(availableTools(state), state.childUnsafeTools);
  // Injected args are no part of a job (spawn_self's arguments are its job): split off, kept in the metadata.
  const { executable, injected } = splitInjectedArgs(call.args, state.injectedArgNames);
  const parsed = parseJobs({ ...call, args: executable }, config.max_parallel_subagents, childSafe, config.subagents ?? []);
  if ('error' in parsed)
    return withInjectedArgs(workflowErrorResult(call, step, startedAt, `Error: ${parsed.error}`, ErrorCode.subagentRefused), injected);
  const parentId = workflowInfo().workflowId;
  // Asked only by calls with named jobs: the others issue their commands as they always did.
  const versionAttribute = parsed.jobs.some((job) => job.agent !== undefined) && (await namespaceHasAgentVersion());
  const outcomes = await Promise.all(
    parsed.jobs.map(async (job, index): Promise<SubagentOutcome> => {
      const workflowId = childWorkflowId(`${parentId}.${activityPrefix}.sub-${index + 1}`);
      try {
        const result = await executeChild<AgentRunWorkflow>(WireName.agentRunWorkflow, {
          workflowId,
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          ...(job.agent !== undefined ? namedChild(state, job, job.agent, index, versionAttribute) : copyChild(state, job, index, childSafe)),
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

/** What a child's start says beside its id and parent-close policy. */
type ChildStart = Pick<ChildWorkflowOptions, 'staticSummary'> & { args: [AgentRunWorkflowInput]; typedSearchAttributes: SearchAttributePair[] };

/** A copy of this agent, narrowed by the job, within what this run may still spend. */
function copyChild(state: LoopState, job: SubagentJob, index: number, childSafe: readonly string[]): ChildStart {
  const { config } = state;
  return {
    args: [
      {
        config: { ...childConfig(configForChildren(state), job, childSafe), ...childCostLimit(state) },
        task: childTask(job),
        timeouts: state.execution.input.timeouts,
        ...resourceOf(state),
      },
    ],
    staticSummary: `sub-agent ${index + 1} of ${config.name}: ${job.task.slice(0, 80)}`,
    typedSearchAttributes: [
      { key: AgentNameAttribute, value: config.name },
      { key: AgentStatusAttribute, value: 'running' },
      // The skills watcher finds sub-agents by this attribute.
      ...(config.skill_sources.length > 0 ? [{ key: AgentSkillSourcesAttribute, value: config.skill_sources }] : []),
      ...childCostAttributes(),
    ],
  };
}

/**
 * An agent the workers define, by name: the child resolves it (as `startRun({ agent })` does) and
 * runs under its definition's own limits, its `cost_limit` lowered to what this run may still
 * spend (its cost counts in this run's usage). `AgentVersion` starts as the name, which the child
 * turns into `name@version`, when the namespace has the attribute.
 */
function namedChild(state: LoopState, job: SubagentJob, agent: string, index: number, versionAttribute: boolean): ChildStart {
  const limit = childCostLimit(state);
  return {
    args: [
      {
        agent: { name: agent },
        task: childTask(job),
        timeouts: state.execution.input.timeouts,
        ...resourceOf(state),
        ...(limit.cost_limit !== undefined ? { costCeilingUsd: limit.cost_limit } : {}),
      },
    ],
    staticSummary: `sub-agent ${index + 1} of ${state.config.name} (${agent}): ${job.task.slice(0, 80)}`,
    typedSearchAttributes: [
      { key: AgentNameAttribute, value: agent },
      ...(versionAttribute ? [{ key: AgentVersionAttribute, value: agent }] : []),
      { key: AgentStatusAttribute, value: 'running' },
      ...childCostAttributes(),
    ],
  };
}

/**
 * Whether the namespace has `AgentVersion` (a local activity: one marker, never asked again on
 * replay). A namespace set up before the attribute existed would refuse a child started with it
 * and retry the workflow task for ever; such a child starts without it instead.
 */
async function namespaceHasAgentVersion(): Promise<boolean> {
  const { checkSearchAttributes } = proxyLocalActivities<AgentActivities>({ startToCloseTimeout: '10s', retry: { maximumAttempts: 2 } });
  try {
    return (await checkSearchAttributes([AgentVersionAttribute.name])).missing === null;
  } catch (error) {
    if (isCancellation(error)) throw error;
    return false;
  }
}
