// How an agent run continues as new: as a run, with the same agent (its history grew long) or the one a handoff chose.
import { makeContinueAsNewFunc, workflowInfo } from '@temporalio/workflow';
import type { AgentConfig } from '../../config/agent-config';
import type { AgentRunWorkflowInput, CarriedState } from '../../protocol/run-types';
import type { AgentRunWorkflow } from '../rules/workflow-signatures';
import { AgentStatusAttribute } from '../../protocol/search-attributes';
import { assertContinuationFits } from '../loop/continuation';
import { markContinued } from '../loop/run-lifecycle';
import { costAttributes } from '../rules/cost-attribute';
import { handoffSearchAttributes } from '../rules/loop-decisions';
import { slotsToCarry } from './concurrency-gate';
import { originLinkAttributes } from './fork-start';
import type { RunState } from './run-state';

/** Continues the run as new with what it carries; `next` is the agent that takes over (the same one, or a handoff's target). */
export function continueRun(state: RunState, carry: CarriedState, next: AgentConfig): Promise<never> {
  const { input } = state.execution;
  const nextInput: AgentRunWorkflowInput = {
    config: next,
    task: input.task,
    timeouts: input.timeouts,
    historyEventLimit: input.historyEventLimit,
    ...(input.historySizeLimitBytes !== undefined ? { historySizeLimitBytes: input.historySizeLimitBytes } : {}),
    agents: state.agents,
    carried: carry,
    // An evaluation run stays one through continue-as-new and handoffs.
    ...(input.replay ? { replay: input.replay } : {}),
    // The next agent works for the same resource (its memory).
    ...(input.resourceId !== undefined ? { resourceId: input.resourceId } : {}),
    // The run's chain keeps its concurrency cap and the slots it holds.
    ...(input.concurrency ? { concurrency: input.concurrency } : {}),
    // A named agent's definition goes on with it (never resolved again); a handoff's target is another agent.
    ...(input.agent && next.name === input.agentVersion?.name ? { agent: input.agent, agentVersion: input.agentVersion } : {}),
    ...slotsToCarry(state),
  };
  assertContinuationFits(nextInput);
  markContinued(state, next.name);
  if (next.name === state.config.name) {
    // Without attributes of its own the new execution would inherit this one's `continued`.
    const typedSearchAttributes = workflowInfo()
      .typedSearchAttributes.updateCopy([{ key: AgentStatusAttribute, value: 'running' }])
      .getAll();
    return makeContinueAsNewFunc<AgentRunWorkflow>({ typedSearchAttributes })(nextInput);
  }
  // The attributes given here replace the run's (see handoffSearchAttributes).
  const typedSearchAttributes = [...handoffSearchAttributes(next), ...originLinkAttributes(), ...costAttributes(state)];
  return makeContinueAsNewFunc<AgentRunWorkflow>({ typedSearchAttributes })(nextInput);
}
