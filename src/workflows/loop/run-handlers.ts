import { setHandler } from '@temporalio/workflow';
import { parseDuration } from '../../config/duration';
import { validateConversationRequest, validateInjectedMessage } from '../../protocol/message-validation';
import {
  conversationQuery,
  eventsQuery,
  injectMessageSignal,
  injectMessageUpdate,
  MessageDescription,
  statusQuery,
} from '../../protocol/run-messages';
import { WireName } from '../../protocol/wire-names';
import type { RunStatus } from '../../protocol/run-types';
import { ApprovalGate } from './approval-gate';
import { reportIgnoredSignal, validOrRefuse } from './message-refusal';
import { showDetails } from './run-lifecycle';
import { availableTools, type LoopState } from './loop-state';

/**
 * Registers the run's queries (`conversation`, `events`, `status`), the approval signal and
 * update (through the `ApprovalGate` it returns) and the inject-message signal and update. The
 * skills signal is registered by `followSkillChanges`, after the run is announced.
 *
 * Registration order matters: a message that arrived before the run began is delivered when its
 * handler is set, and whatever it logs lands in the event log at that point.
 */
export function installRunHandlers(state: LoopState): ApprovalGate {
  // Checked like a signal's payload: the Web UI's Queries tab sends no argument, other tools any JSON.
  setHandler(conversationQuery, (request) => state.threads.slice(validOrRefuse(validateConversationRequest(request))), {
    description: MessageDescription.conversation,
  });
  setHandler(eventsQuery, (cursor, limit = 200) => state.events.page(cursor, limit, state.stopReason !== null || state.phase === 'failed'), {
    description: MessageDescription.events,
  });
  const approvals = new ApprovalGate(
    state.events,
    parseDuration(state.config.hitl_timeout),
    state.injectedArgNames,
    (pending) => showDetails(state, pending),
    // Configs from before the setting lack it: their decisions apply as they did.
    () => state.config.require_verified_decisions === true,
  );
  setHandler(statusQuery, () => runStatus(state, approvals), { description: MessageDescription.status });
  setHandler(
    injectMessageSignal,
    (payload) => {
      const checked = validateInjectedMessage(payload);
      if (checked.ok) return void state.injectedQueue.push(checked.value.text);
      reportIgnoredSignal(state.events, WireName.injectMessageSignal, checked.reason);
    },
    { description: MessageDescription.injectMessage },
  );
  setHandler(
    injectMessageUpdate,
    (payload) => {
      state.injectedQueue.push(payload.text);
      return { queued: state.injectedQueue.length };
    },
    {
      description: MessageDescription.injectMessageChecked,
      validator: (payload) => void validOrRefuse(validateInjectedMessage(payload)),
    },
  );
  return approvals;
}

/** The answer to the `status` query. */
function runStatus(state: LoopState, approvals: ApprovalGate): RunStatus {
  const { budget, lastPromptTokens } = state;
  const { agentVersion } = state.execution.input;
  return {
    phase: state.phase,
    ...(agentVersion ? { agentVersion } : {}),
    step: state.step,
    // Step numbers count the whole run (across handoffs): the last step this agent may take.
    maxSteps: state.stepLimit,
    ...(state.carried?.stepBase ? { stepBase: state.carried.stepBase } : {}),
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
    ...(state.providerLimitWait ? { providerLimitWait: { ...state.providerLimitWait } } : {}),
    ...(state.concurrencySlotWait ? { concurrencySlotWait: { ...state.concurrencySlotWait } } : {}),
  };
}

/** Moves queued injected messages into the executor conversation, oldest first (before a model call or a continuation). */
export function drainInjectedMessages(state: LoopState): void {
  while (state.injectedQueue.length > 0) {
    const text = state.injectedQueue.shift()!;
    state.threads.push('executor', { role: 'user', content: text });
    state.events.push({ type: 'message-injected', step: state.step, text });
  }
}
