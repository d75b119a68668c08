// The `agentThread` workflow: one durable conversation, a turn of the agent loop per user message.
import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { AgentThreadWorkflowInput, ResolvedThreadInput, ThreadResult } from '../../protocol/thread-types';
import { currentBuild, newerDefinition, resolveThreadStart } from './named-thread';
import { restoreCarriedToolResults } from '../loop/restore-tool-results';
import { restoreTurnToolResults } from './restore-turn-results';
import { spentUsd } from '../rules/usage-totals';
import { firstStep } from '../rules/loop-decisions';
import { installRunHandlers } from '../loop/run-handlers';
import { markFailed } from '../loop/run-lifecycle';
import { createThreadState, type ThreadState } from './thread-state';
import { takeSteps } from '../loop/take-steps';
import { followSkillChanges, loadSkillSources } from '../loop/skill-updates';
import { ThreadBook } from './thread-book';
import { installThreadHandlers } from './thread-handlers';
import { continueThread, finishTurn, moveThread, moveToDefinition, reopenInput, showThreadStatus, startTurn, turnEndOf } from './thread-lifecycle';
import { installVersionCheck, targetVersionChanged } from '../versioning/version-moves';
import { discoverMcpTools } from '../loop/tool-dispatch';
import type { ApprovalGate } from '../loop/approval-gate';
import { runPlanner, type PlanRequest } from '../loop/planner';
import { turnEndHooks } from '../loop/run-hooks';
import { startTurnInstructions } from '../loop/run-instructions';

/**
 * A thread: one durable conversation with one agent, addressed by the id its caller chose. Each
 * user message (the `sendMessage` update; the first one creates the thread through
 * update-with-start) is answered by a turn of the same step loop agent runs use — tools in
 * parallel, approvals, sub-agents, handoffs, budget and compaction, skills, streaming — and turn
 * N+1 sees everything before it. Between turns the thread waits on a durable condition: no worker
 * needs to hold it, and it may wait months. Messages that arrive during a turn follow their policy
 * (enqueue, inject, interrupt, reject); none is lost or answered twice (ids are remembered).
 *
 * The history stays bounded: the thread continues as new with its conversation by reference when
 * its history grows long (between steps, even in the middle of a turn), carrying its queue and
 * recent turn results. It closes on `closeThread`, or after `settings.idleTimeoutMs` without a
 * message; its result is the last turn, and with `settings.whenClosed` `reopen` the input a new
 * execution of the same id continues from (a client starts it with the next message).
 *
 * @example
 * ```ts
 * // AgentClient does this (with update-with-start); from any Temporal client:
 * const receipt = await client.workflow.executeUpdateWithStart(sendMessageUpdate, {
 *   args: [{ messageId: 'm-1', text: 'Where is my order?' }],
 *   startWorkflowOperation: new WithStartWorkflowOperation(WireName.agentThreadWorkflow, {
 *     workflowId: 'support:customer-42', taskQueue: DEFAULT_TASK_QUEUE, workflowIdConflictPolicy: 'USE_EXISTING', args: [input],
 *   }),
 * });
 * ```
 */
export async function agentThread(started: AgentThreadWorkflowInput): Promise<ThreadResult> {
  // A thread that names its agent asks the workers for its definition first (its first message waits).
  const { input, early } = started.config ? { input: started as ResolvedThreadInput, early: null } : await resolveThreadStart(started);
  const book = new ThreadBook(input.configHash, input.carriedThread, input.settings.whenClosed === 'reopen');
  const state = createThreadState(input, (thread, carry, next) => continueThread(thread, book, input, carry, next));
  const { config } = state;
  if (input.carriedThread?.injected) state.injectedQueue.push(...input.carriedThread.injected);
  const approvals = installRunHandlers(state);
  const deliver = installThreadHandlers(state, book, approvals, input.settings);
  early?.release(deliver);
  if (early && input.agentVersion) {
    state.events.push({ type: 'agent-resolved', ...input.agentVersion });
    state.execution.definitionBuild = currentBuild();
  }
  followSkillChanges(state);
  installVersionCheck();
  state.step = firstStep(state.carried) - 1;
  showThreadStatus(state, book, book.current ? 'running' : 'idle');

  try {
    if (config.skill_sources.length > 0) await loadSkillSources(state, new Map(config.skill_sources.map((source) => [source, 0])));
    if (config.mcp_servers.length > 0) await discoverMcpTools(state);
    if (book.current) await resumeTurn(state, approvals, book);
    for (let next = await nextMessage(book, input); next !== 'close'; next = await nextMessage(book, input)) {
      // Between turns, the thread moves to its deployment's new build (a queued message is carried).
      if (next === 'move') await moveThread(state, book, input);
      // A named thread that follows its agent moves to a newer definition before the turn, never in one.
      await followDefinition(state, book, input);
      const planning = startTurn(state, book);
      await openTurn(state, book.current!.turn);
      await answerTurn(state, approvals, book, planning);
    }
  } catch (error) {
    markFailed(state, error);
    throw error;
  }
  return closeThread(state, book, input);
}

/**
 * Waits for a queued message (`message`), for the thread to close (`close`: on request once
 * nothing is queued, or after the idle timeout), or for its Worker Deployment to have a new target
 * build (`move`, before a queued message: its turn runs on the new build). The version flag is in
 * the wait's condition, so the workflow task of a `checkVersion` signal wakes an idle thread.
 */
async function nextMessage(book: ThreadBook, input: ResolvedThreadInput): Promise<'message' | 'close' | 'move'> {
  const { idleTimeoutMs } = input.settings;
  const ready = () => book.queued.length > 0 || book.closing !== null || targetVersionChanged();
  // The idle timeout counts from when the thread began to wait, also across a move to a new build.
  const arrived =
    idleTimeoutMs === null ? await condition(ready).then(() => true) : await condition(ready, book.idleTimeLeft(Date.now(), idleTimeoutMs));
  if (!arrived) book.closing = `idle for ${Math.round(idleTimeoutMs! / 1000)} s`;
  // A thread asked to close closes on the build it runs on: no move for its last moments.
  if (targetVersionChanged() && book.closing === null) return 'move';
  if (book.queued.length > 0) return 'message';
  return 'close';
}

/**
 * Before a turn of a named thread that follows its agent: when its workers offer a newer
 * definition, the thread continues as new onto it (the queued message is carried, and its turn is
 * the first the new definition answers); otherwise it goes on as it is.
 */
async function followDefinition(state: ThreadState, book: ThreadBook, input: ResolvedThreadInput): Promise<void> {
  const newer = await newerDefinition(input, state.execution, (reason) =>
    state.events.push({ type: 'agent-unavailable', name: input.agentVersion!.name, keptVersion: input.agentVersion!.version, reason }),
  );
  if (!newer) return;
  state.events.push({ type: 'agent-resolved', ...newer.agentVersion!, previousVersion: input.agentVersion!.version });
  await moveToDefinition(state, book, newer);
}

/** A turn the previous execution was in the middle of (it continued as new between two steps). */
async function resumeTurn(state: ThreadState, approvals: ApprovalGate, book: ThreadBook): Promise<void> {
  const turn = book.current!;
  state.execution.turnCostBase = spentUsd(turn.usageAtStart);
  state.stepLimit = Math.max(turn.firstStep - 1, state.carried?.stepBase ?? 0) + state.config.max_steps;
  await answerTurn(state, approvals, book, null);
}

/**
 * The turn's plan (when `planning` is given: the planner takes the next step number) and steps; a
 * message injected as the model gave its answer gets one more step (the turn answers every
 * message injected into it while steps remain).
 */
async function answerTurn(state: ThreadState, approvals: ApprovalGate, book: ThreadBook, planning: PlanRequest | null): Promise<void> {
  let end;
  try {
    if (planning) {
      state.step++;
      await runPlanner(state, approvals, planning);
    }
    end = await takeSteps(state, approvals, state.step + 1);
    while (end.reason === 'completed' && state.injectedQueue.length > 0 && state.step < state.stepLimit && !state.execution.interruptRequested) {
      end = await takeSteps(state, approvals, state.step + 1);
    }
  } catch (error) {
    end = turnEndOf(state, error);
  }
  await restoreCarriedToolResults(state, state.toolResultCount - book.current!.toolResultsAtStart);
  finishTurn(state, book, await turnEndHooks(state, book.current!.turn, end));
}

/** A new turn's start, before its steps: the hooks' turn opening, and its instructions (filled again, or the provider's). */
async function openTurn(state: ThreadState, turn: number): Promise<void> {
  state.hooks.opening = { kind: 'turn', turn };
  const message = state.threads.held('executor').messages.at(-1);
  await startTurnInstructions(state, turn, message?.role === 'user' ? message.content : '');
}

/**
 * Closes the thread: the `thread-closed` event, `AgentStatus` `closed`, and the result (once
 * waiting callers have their answers); a thread that reopens saves its conversation for that.
 */
async function closeThread(state: ThreadState, book: ThreadBook, input: ResolvedThreadInput): Promise<ThreadResult> {
  book.closedReason = book.closing ?? 'closed';
  state.stopReason = 'completed';
  state.phase = 'completed';
  state.events.push({ type: 'thread-closed', reason: book.closedReason, turnsCompleted: book.turnsCompleted });
  showThreadStatus(state, book, 'closed');
  await condition(allHandlersFinished);
  const lastTurn = book.recentTurns.at(-1);
  if (lastTurn) await restoreTurnToolResults(state, book, lastTurn.turn);
  const result: ThreadResult = {
    turnsCompleted: book.turnsCompleted,
    closedReason: book.closedReason,
    usage: state.usage,
    lastTurn: book.recentTurns.at(-1) ?? null,
  };
  if (input.settings.whenClosed === 'reopen') result.reopenWith = await reopenInput(state, book, input);
  return result;
}
