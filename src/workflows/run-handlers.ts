import { log, setHandler } from '@temporalio/workflow';
import { parseDuration } from '../shared/duration';
import { conversationQuery, eventsQuery, injectMessageSignal, injectMessageUpdate, statusQuery } from '../shared/run-messages';
import type { RunStatus } from '../shared/run-types';
import { ApprovalGate } from './approval-gate';
import { availableTools, type RunState } from './run-state';

/**
 * Registers the run's queries (`conversation`, `events`, `status`), the approval signal and
 * update (through the `ApprovalGate` it returns) and the inject-message signal and update. The
 * skills signal is registered by `followSkillChanges`, after the run is announced.
 *
 * Registration order matters: a message that arrived before the run began is delivered when its
 * handler is set, and whatever it logs lands in the event log at that point.
 */
export function installRunHandlers(state: RunState): ApprovalGate {
  setHandler(conversationQuery, (request) => state.threads.slice(request));
  setHandler(eventsQuery, (cursor, limit = 200) => state.events.page(cursor, limit, state.stopReason !== null));
  const approvals = new ApprovalGate(state.events, parseDuration(state.config.hitl_timeout), state.injectedArgNames);
  setHandler(statusQuery, () => runStatus(state, approvals));
  setHandler(injectMessageSignal, (message) => {
    if (typeof message?.text !== 'string' || !message.text.trim()) {
      log.warn('Ignored an empty injected message');
      return;
    }
    state.injectedQueue.push(message.text);
  });
  setHandler(
    injectMessageUpdate,
    (message) => {
      state.injectedQueue.push(message.text);
      return { queued: state.injectedQueue.length };
    },
    {
      validator: (message) => {
        if (typeof message?.text !== 'string' || !message.text.trim()) throw new Error('text: an injected message must not be empty');
      },
    },
  );
  return approvals;
}

/** The answer to the `status` query. */
function runStatus(state: RunState, approvals: ApprovalGate): RunStatus {
  const { budget, lastPromptTokens } = state;
  return {
    phase: state.phase,
    step: state.step,
    maxSteps: state.config.max_steps,
    activeTools: availableTools(state),
    runningTools: [...state.runningTools],
    usage: state.usage,
    messageCount: state.threads.count('executor'),
    stopReason: state.stopReason,
    pendingApprovals: approvals.book.pending(),
    plan: state.plan,
    budget: budget && lastPromptTokens !== null ? { promptTokens: lastPromptTokens, contextWindow: budget.contextWindow } : null,
    queuedMessages: state.injectedQueue.length,
    skills: state.skills.status(),
  };
}

/** Moves queued injected messages into the executor conversation, oldest first (before a model call or a continuation). */
export function drainInjectedMessages(state: RunState): void {
  while (state.injectedQueue.length > 0) {
    const text = state.injectedQueue.shift()!;
    state.threads.push('executor', { role: 'user', content: text });
    state.events.push({ type: 'message-injected', step: state.step, text });
  }
}
