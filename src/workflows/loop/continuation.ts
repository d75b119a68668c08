import { ApplicationFailure, log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import type { ConversationBase } from '../../protocol/conversation-base';
import { ErrorCode } from '../../protocol/errors';
import { jsonBytes, PAYLOAD_LIMIT_BYTES } from '../../protocol/payload-size';
import { infrastructureRetryPolicy } from '../rules/infrastructure-retry-policy';
import type { AgentConfig } from '../../config/agent-config';
import type { CarriedState, StoredToolResults } from '../../protocol/run-types';
import type { StoreToolResultsInput } from '../../activities/carried-tool-results';
import { shouldContinueAsNew } from '../rules/loop-decisions';
import { summarizeEvent } from './event-log';
import { drainInjectedMessages } from './run-handlers';
import type { LoopState } from './loop-state';
import { handoffHooks } from './run-hooks';
import { instructionsToCarry } from './run-instructions';

/**
 * Continuation: a run hands its conversation to a fresh run (continue-as-new) before its history
 * nears Temporal's limits, and on a handoff, where the fresh run has the target agent's config.
 * The carried state is bounded: the conversation by reference (a snapshot in the artifact store),
 * counters, the newest summarised tool results and events.
 */

/** Events carried over, so live readers keep their place. */
const CARRIED_EVENTS = 200;
/**
 * At most 12 KB of them, each summarised (long texts cut to 500 characters), so the carried state
 * stays under 32 KB. Live readers
 * poll every second or so and are rarely more than a few events behind; one further behind is
 * told how many events it missed (`EventPage.missed`), and `history` has them all.
 */
const CARRIED_EVENTS_LIMIT_BYTES = 12_000;

/** Whether the run continues as new before `state.step` (`shouldContinueAsNew`): asked without awaiting, at each step. */
export function continuationDue(state: LoopState): boolean {
  return shouldContinueAsNew(state.step, workflowInfo(), state.execution.input);
}

/** Continues as new before `state.step`, with the same agent, because the history is long. */
export function continueToKeepHistorySmall(state: LoopState): Promise<never> {
  const info = workflowInfo();
  log.info('Continuing as new to keep the history small', { step: state.step, historyLength: info.historyLength, historySize: info.historySize });
  return continueWith(state, state.config, state.carried?.stepBase ?? 0);
}

/** Transfers the conversation to agent `target`: a new run (continue-as-new) with its config, after this step. */
export async function handOff(state: LoopState, target: string): Promise<never> {
  const { config } = state;
  await handoffHooks(state, target);
  state.handoffs.push({ from: config.name, to: target, step: state.step });
  state.events.push({ type: 'handoff', step: state.step, from: config.name, to: target });
  state.step++;
  return continueWith(state, state.agents[target]!, state.step - 1);
}

/**
 * Continues as new with the conversation and counters; `next` is the agent that takes over,
 * counting its steps from `stepBase`. The workflow it runs in continues as itself
 * (`execution.continueAs`): a run as a run, a thread as a thread.
 */
async function continueWith(state: LoopState, next: AgentConfig, stepBase: number): Promise<never> {
  const carry = await carriedState(state, next, state.step - 1, stepBase);
  return state.execution.continueAs(carry, next);
}

/** The instructions the next execution keeps, when it runs the same agent and they are not simply its config's. */
function carriedInstructions(state: LoopState, next: AgentConfig): { instructions?: string } {
  const instructions = next.name === state.config.name ? instructionsToCarry(state) : undefined;
  return instructions !== undefined ? { instructions } : {};
}

/**
 * What the next execution carries: the conversation (by reference: saved to the artifact store by
 * an activity), counters with `lastStep` as the last step taken, and bounded tails of tool results
 * and events; `next` is the agent that runs the next execution. Injected messages not yet drained join the conversation first. Continue-as-new and a
 * thread that closes to be reopened use it.
 */
export async function carriedState(state: LoopState, next: AgentConfig, lastStep: number, stepBase: number): Promise<CarriedState> {
  drainInjectedMessages(state);
  const counters = {
    taskIndex: state.taskIndex,
    step: lastStep,
    usage: state.usage,
    plan: state.plan,
    compactions: state.compactions,
    continuations: (state.carried?.continuations ?? 0) + 1,
    stepBase,
    handoffs: state.handoffs,
    ...(state.loopWatch.recent.length > 0 ? { loopWatch: state.loopWatch } : {}),
    // The same agent keeps its instructions (a provider is asked once a run); a handoff's target resolves its own.
    ...carriedInstructions(state, next),
  };
  return carryReferences(state, counters);
}

/**
 * The carried state: the conversation and the newest tool results by reference (one
 * `saveConversation` activity stores both), and the newest events within
 * CARRIED_EVENTS_LIMIT_BYTES: a few KB whatever the run's length and results.
 */
async function carryReferences(
  state: LoopState,
  counters: Omit<CarriedState, 'conversation' | 'toolResultCount' | 'recentEvents' | 'lastEventSeq'>,
): Promise<CarriedState> {
  const saved = await saveConversation(state, {
    toolResults: state.toolResults,
    ...(state.carriedToolResults ? { carried: state.carriedToolResults } : {}),
  });
  return {
    ...counters,
    conversation: state.threads.carry(saved.artifactId, state.taskIndex),
    ...(saved.toolResults ? { toolResultsRef: saved.toolResults } : {}),
    toolResultCount: state.toolResultCount,
    recentEvents: state.events.tail(CARRIED_EVENTS, CARRIED_EVENTS_LIMIT_BYTES, summarizeEvent),
    lastEventSeq: state.events.lastSeq,
  };
}

/** Writes the conversation and the newest tool results to the artifact store (an activity): the continued run carries their ids. */
async function saveConversation(
  state: LoopState,
  toolResults: StoreToolResultsInput,
): Promise<ConversationBase & { toolResults?: StoredToolResults }> {
  const activityId = `step-${state.step}.save-conversation`;
  const { saveConversation: save } = proxyActivities<AgentActivities>({
    activityId,
    summary: `step ${state.step}: save the conversation (${state.threads.count('executor')} messages) before continuing as new`,
    startToCloseTimeout: state.timeouts.modelStepMs,
    heartbeatTimeout: state.timeouts.heartbeatMs,
    retry: infrastructureRetryPolicy(30_000),
  });
  return save({ conversation: state.threads.ref('executor'), toolResults });
}

/**
 * A continuation is bounded by construction (the conversation by reference, the newest tool
 * results and events); what is left to grow is the user's own input (configs, prior messages). If
 * that alone passes the payload bound, the run fails now with a typed failure, rather than loop
 * on a workflow task Temporal refuses.
 */
export function assertContinuationFits(nextInput: object): void {
  const bytes = jsonBytes(nextInput);
  if (bytes <= PAYLOAD_LIMIT_BYTES) return;
  throw ApplicationFailure.nonRetryable(
    `The state this run continues with is ${bytes} bytes, above the ${PAYLOAD_LIMIT_BYTES}-byte bound (Temporal refuses payloads over 2 MB): shorten the agent configs or the prior messages`,
    ErrorCode.payloadTooLarge,
  );
}
