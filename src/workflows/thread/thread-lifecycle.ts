// A thread's turns begin and end here, and a thread continues as new from here.
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  isCancellation,
  makeContinueAsNewFunc,
  setCurrentDetails,
  TemporalFailure,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentConfig } from '../../config/agent-config';
import type { CarriedState, ModelUsage, UsageSummary } from '../../protocol/run-types';
import { roundUsd } from '../../protocol/model-price';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { AgentLastActivityAttribute, AgentNameAttribute, AgentStatusAttribute } from '../../protocol/search-attributes';
import type { AgentThreadWorkflowInput, CarriedThreadState, ResolvedThreadInput, TurnResult } from '../../protocol/thread-types';
import { carriedState } from '../loop/continuation';
import { targetVersionChanged, versionMoveOptions } from '../versioning/version-moves';
import { carryThreadBook } from './restore-turn-results';
import { emptyLoopWatch } from '../rules/loop-detection';
import { enterPhase, RunStop } from '../loop/run-lifecycle';
import { costAttributes } from '../rules/cost-attribute';
import { spentUsd } from '../rules/usage-totals';
import type { ThreadState } from './thread-state';
import type { StepsEnd } from '../loop/steps-end';
import type { PlanRequest } from '../loop/planner';
import type { ThreadBook } from './thread-book';
import type { AgentThreadWorkflow } from '../rules/workflow-signatures';

/** A thread's `AgentStatus`: `idle` between turns, `running` in one (`awaiting_approval` is the approval gate's), `closed` at the end. */
export type ThreadStatusValue = 'idle' | 'running' | 'closed';

/**
 * Sets `AgentStatus` (only when it changes; with the cost when it is not `running`) and, on
 * `activity` (a turn starts or ends), `AgentLastActivity`, in one command; and the Web UI's
 * current details.
 */
export function showThreadStatus(state: ThreadState, book: ThreadBook, status: ThreadStatusValue, activity = false): void {
  const changes: SearchAttributeUpdatePair[] = [];
  if (workflowInfo().typedSearchAttributes.get(AgentStatusAttribute) !== status) {
    changes.push({ key: AgentStatusAttribute, value: status }, ...(status === 'running' ? [] : costAttributes(state)));
  }
  if (activity && keepsLastActivity()) changes.push(lastActivityNow());
  if (changes.length > 0) upsertSearchAttributes(changes);
  const queued = book.queued.length > 0 ? ` · ${book.queued.length} message(s) queued` : '';
  const turns = `${book.turnsCompleted} turn(s) answered`;
  if (status === 'running' && book.current) setCurrentDetails(`turn ${book.current.turn} running (${state.config.name}) · ${turns}${queued}`);
  else if (status === 'closed') setCurrentDetails(`closed: ${book.closedReason} · ${turns}`);
  else setCurrentDetails(`idle, waiting for the next message · ${turns}${queued}`);
}

/** Sets `AgentLastActivity` to now: the thread accepted a message that waits for its turn. */
export function showActivity(): void {
  if (keepsLastActivity()) upsertSearchAttributes([lastActivityNow()]);
}

/**
 * Whether this thread keeps `AgentLastActivity`: only when it started with the attribute. A thread created before the attribute existed may live in a namespace without it,
 * where an upsert would fail every workflow task (`BadSearchAttributes`); a client that sets it at
 * the start proves the namespace has it (an older namespace refuses that start, and the client
 * says to rerun `setup`).
 */
function keepsLastActivity(): boolean {
  return workflowInfo().typedSearchAttributes.get(AgentLastActivityAttribute) !== undefined;
}

function lastActivityNow(): SearchAttributeUpdatePair {
  // The workflow clock: the time of the task that accepted the message or ended the turn.
  return { key: AgentLastActivityAttribute, value: new Date(Date.now()) };
}

/**
 * Starts the next queued message's turn: its message joins the conversation, its steps count from
 * the next step. With `planning_enabled`, the turn's plan request (the planner takes one step
 * number of its own, so approval ids of its tool calls never meet an earlier turn's).
 */
export function startTurn(state: ThreadState, book: ThreadBook): PlanRequest | null {
  const firstStep = state.step + 1;
  const next = book.startNext(firstStep, Date.now(), copyUsage(state.usage), state.toolResultCount);
  state.execution.turnCostBase = spentUsd(state.usage);
  state.threads.push('executor', { role: 'user', content: next.text });
  // Loop detection counts within a turn: a user who asks for the same thing again is no loop.
  state.loopWatch = emptyLoopWatch();
  state.events.push({ type: 'turn-started', turn: next.turn, messageId: next.messageId, text: next.text });
  showThreadStatus(state, book, 'running', true);
  const planning = state.config.planning_enabled;
  state.stepLimit = state.step + (planning ? 1 : 0) + state.config.max_steps;
  return planning ? { task: next.text, messageIndex: state.threads.count('executor') - 1, idPrefix: `turn-${next.turn}.` } : null;
}

/**
 * Ends a turn's steps as a turn ends, not as a run: a `RunStop` (budget, context length) and a
 * deliberate failure (a non-retryable model error, say) end the turn with that reason, and the
 * thread goes on. Cancellation, continue-as-new and bugs propagate.
 */
export function turnEndOf(state: ThreadState, error: unknown): StepsEnd & { failure?: { type: string | null; message: string } } {
  if (error instanceof RunStop) return { reason: error.reason, output: state.threads.lastAssistantText(), extra: { stopDetail: error.detail } };
  if (error instanceof TemporalFailure && !isCancellation(error)) {
    const type = error instanceof ApplicationFailure ? (error.type ?? null) : ((error.cause as ApplicationFailure | undefined)?.type ?? null);
    return {
      reason: 'completed',
      output: state.threads.lastAssistantText(),
      extra: { stopDetail: `the turn failed: ${error.message}` },
      failure: { type, message: error.message },
    };
  }
  throw error;
}

/** Records the running turn's result and puts the thread between turns. */
export function finishTurn(state: ThreadState, book: ThreadBook, end: StepsEnd & { failure?: { type: string | null; message: string } }): TurnResult {
  const turn = book.current!;
  const resultsInTurn = Math.min(state.toolResultCount - turn.toolResultsAtStart, state.toolResults.length);
  const result: TurnResult = {
    turn: turn.turn,
    messageIds: [...turn.messageIds],
    output: end.output,
    stopReason: end.failure ? 'failed' : end.reason,
    ...(end.extra.stopDetail ? { stopDetail: end.extra.stopDetail } : {}),
    ...(end.extra.structuredOutput !== undefined ? { structuredOutput: end.extra.structuredOutput } : {}),
    ...(end.failure ? { failure: end.failure } : {}),
    firstStep: turn.firstStep,
    lastStep: Math.max(state.step, turn.firstStep - 1),
    usage: usageSince(turn.usageAtStart, state.usage),
    toolResults: resultsInTurn > 0 ? state.toolResults.slice(-resultsInTurn) : [],
    startedAt: turn.startedAt,
    completedAt: Date.now(),
    ...(state.execution.input.agentVersion ? { agentVersion: state.execution.input.agentVersion } : {}),
  };
  state.execution.interruptRequested = false;
  // The turn's usage rides on the event, so a stream's last chunk needs no query for it.
  state.events.push({
    type: 'turn-completed',
    turn: turn.turn,
    stopReason: result.stopReason,
    output: result.output,
    usage: result.usage,
    ...(result.agentVersion ? { agentVersion: result.agentVersion } : {}),
  });
  book.complete(result);
  enterPhase(state, 'idle');
  showThreadStatus(state, book, 'idle', true);
  return result;
}

/**
 * Continues the thread as new (its history grew long, or a handoff gave it another agent): waits
 * until no update handler runs (waiting `awaitTurn` calls answer `continued`, and their callers
 * ask the next execution), then carries the run's state and the thread's. Between turns, when its
 * Worker Deployment has a new target build, the next execution starts on that build; in a turn it
 * stays on this one (a turn finishes on the build that started it).
 */
export async function continueThread(
  state: ThreadState,
  book: ThreadBook,
  input: ResolvedThreadInput,
  carry: CarriedState,
  next: AgentConfig,
): Promise<never> {
  book.continuing = true;
  await condition(allHandlersFinished);
  const nextInput = nextThreadInput(state, input, carry, await carryThreadBook(state, book), next);
  const typedSearchAttributes = workflowInfo()
    .typedSearchAttributes.updateCopy([
      { key: AgentNameAttribute, value: next.name },
      { key: AgentStatusAttribute, value: book.current ? 'running' : 'idle' },
    ])
    .getAll();
  const move = book.current === null && targetVersionChanged();
  return makeContinueAsNewFunc<AgentThreadWorkflow>({ typedSearchAttributes, ...versionMoveOptions(move) })(nextInput);
}

/**
 * Moves an idle thread to its deployment's target build: continues as new with its conversation
 * (by reference) and book, as a long history would, but onto the new build.
 */
export async function moveThread(state: ThreadState, book: ThreadBook, input: ResolvedThreadInput): Promise<never> {
  return continueThread(state, book, input, await carryAsIs(state), state.config);
}

/**
 * Moves an idle named thread to a newer definition of its agent (`next`: its input with the new
 * config, handoff agents and version): continues as new with its conversation and book.
 */
export async function moveToDefinition(state: ThreadState, book: ThreadBook, next: ResolvedThreadInput): Promise<never> {
  const carry = await carriedState(state, next.config, state.step, state.carried?.stepBase ?? 0);
  return continueThread(state, book, next, carry, next.config);
}

/** The run's state as the next execution takes it over with the same agent, from the same step. */
function carryAsIs(state: ThreadState): Promise<CarriedState> {
  return carriedState(state, state.config, state.step, state.carried?.stepBase ?? 0);
}

/**
 * The input of the execution that reopens this closing thread (its `whenClosed` is `reopen`): the
 * conversation saved by reference, the turn numbers, remembered message ids and settings, as a
 * continue-as-new would carry them. A client starts it with the next message (update-with-start).
 */
export async function reopenInput(state: ThreadState, book: ThreadBook, input: ResolvedThreadInput): Promise<AgentThreadWorkflowInput> {
  return nextThreadInput(state, input, await carryAsIs(state), await carryThreadBook(state, book), state.config);
}

/** The next execution's input: the thread's own, with the run's carried state and the thread's book. */
function nextThreadInput(
  state: ThreadState,
  input: ResolvedThreadInput,
  carry: CarriedState,
  carriedBook: CarriedThreadState,
  config: AgentConfig,
): AgentThreadWorkflowInput {
  const nextInput: AgentThreadWorkflowInput = {
    ...input,
    config,
    carried: carry,
    carriedThread: { ...carriedBook, ...(state.injectedQueue.length > 0 ? { injected: [...state.injectedQueue] } : {}) },
  };
  // The carried conversation holds them.
  delete nextInput.messages;
  return nextInput;
}

function copyUsage(usage: UsageSummary): UsageSummary {
  return { ...usage, byModel: Object.fromEntries(Object.entries(usage.byModel).map(([model, used]) => [model, { ...used }])) };
}

/** The tokens and cost used since `before` (per model too). */
function usageSince(before: UsageSummary, now: UsageSummary): UsageSummary {
  const since: UsageSummary = { ...modelUsageSince(before, now), byModel: {} };
  for (const [model, used] of Object.entries(now.byModel)) {
    const delta = modelUsageSince(before.byModel[model] ?? { inputTokens: 0, outputTokens: 0 }, used);
    if (delta.inputTokens > 0 || delta.outputTokens > 0 || (delta.unpricedCalls ?? 0) > 0) since.byModel[model] = delta;
  }
  return since;
}

function modelUsageSince(before: ModelUsage, now: ModelUsage): ModelUsage {
  const cachedInputTokens = (now.cachedInputTokens ?? 0) - (before.cachedInputTokens ?? 0);
  return {
    inputTokens: now.inputTokens - before.inputTokens,
    outputTokens: now.outputTokens - before.outputTokens,
    ...(cachedInputTokens > 0 ? { cachedInputTokens } : {}),
    ...(now.costUsd !== undefined ? { costUsd: roundUsd(now.costUsd - (before.costUsd ?? 0)) } : {}),
    ...(now.unpricedCalls !== undefined ? { unpricedCalls: now.unpricedCalls - (before.unpricedCalls ?? 0) } : {}),
  };
}
