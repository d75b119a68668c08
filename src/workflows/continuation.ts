import { continueAsNew, log, makeContinueAsNewFunc, patched, workflowInfo } from '@temporalio/workflow';
import type { AgentConfig } from '../shared/agent-config';
import type { AgentRunInput, CarriedState } from '../shared/run-types';
import type { agentRun } from './agent-run';
import { handoffSearchAttributes, shouldContinueAsNew } from './loop-decisions';
import { drainInjectedMessages } from './run-handlers';
import type { RunState } from './run-state';

/**
 * Continuation: a run hands its conversation to a fresh run (continue-as-new) before its history
 * nears Temporal's limits, and on a handoff, where the fresh run has the target agent's config.
 * The carried state is bounded: the conversation, counters, summarised tool results and the
 * newest events.
 */

/** Handoffs carry the target's status and skill sources as search attributes (runs before: only its name). */
const HANDOFF_SEARCH_ATTRIBUTES_PATCH = 'handoff-search-attributes';

/** Events carried over, so live readers keep their place. */
const CARRIED_EVENTS = 200;

/** Continues as new before `state.step` when `shouldContinueAsNew` says so; otherwise returns. */
export async function continueIfHistoryIsLong(state: RunState): Promise<void> {
  const info = workflowInfo();
  if (!shouldContinueAsNew(state.step, info, state.input.historyEventLimit)) return;
  log.info('Continuing as new to keep the history small', { step: state.step, historyLength: info.historyLength });
  await continueWith(state, state.config, state.carried?.stepBase ?? 0);
}

/** Transfers the conversation to agent `target`: a new run (continue-as-new) with its config, after this step. */
export async function handOff(state: RunState, target: string): Promise<never> {
  const { config } = state;
  state.handoffs.push({ from: config.name, to: target, step: state.step });
  state.events.push({ type: 'handoff', step: state.step, from: config.name, to: target });
  state.step++;
  return continueWith(state, state.agents[target]!, state.step - 1);
}

/** Continues as new with the conversation and counters; `next` is the agent that takes over, counting its steps from `stepBase`. */
async function continueWith(state: RunState, next: AgentConfig, stepBase: number): Promise<never> {
  const { config, input } = state;
  drainInjectedMessages(state);
  const carry: CarriedState = {
    messages: state.threads.messages('executor'),
    taskIndex: state.taskIndex,
    step: state.step - 1,
    usage: state.usage,
    toolResults: state.toolResults,
    plan: state.plan,
    compactions: state.compactions,
    recentEvents: state.events.tail(CARRIED_EVENTS),
    continuations: (state.carried?.continuations ?? 0) + 1,
    stepBase,
    handoffs: state.handoffs,
  };
  const nextInput: AgentRunInput = { config: next, task: input.task, timeouts: input.timeouts, historyEventLimit: input.historyEventLimit, agents: state.agents, carried: carry };
  if (next.name === config.name) return continueAsNew<typeof agentRun>(nextInput);
  // The attributes given here replace the run's (see handoffSearchAttributes).
  const typedSearchAttributes = handoffSearchAttributes(next, patched(HANDOFF_SEARCH_ATTRIBUTES_PATCH));
  return makeContinueAsNewFunc<typeof agentRun>({ typedSearchAttributes })(nextInput);
}
