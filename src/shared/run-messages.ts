import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { EventPage } from './run-events';
import type { ApprovalDecision, ApprovalOutcome, ConversationSlice, ConversationThread, RunStatus } from './run-types';
import { WireName } from './wire-names';
import type { SkillBatch } from './skill-types';

/**
 * Query definitions of an agent run, shared by the workflow and the client (defining a query is
 * pure, so this module is safe on both sides).
 */
export const statusQuery = defineQuery<RunStatus>(WireName.statusQuery);

/** Events after `cursor` (0 for all), at most `limit`. */
export const eventsQuery = defineQuery<EventPage, [cursor: number, limit?: number]>(WireName.eventsQuery);

export interface ConversationRequest {
  thread?: ConversationThread;
  epoch: number;
  from: number;
  count: number;
}

/**
 * The conversation of a run, read by its own model-step activities so that no activity input ever
 * carries the whole conversation (history grows O(1) per step).
 */
export const conversationQuery = defineQuery<ConversationSlice, [ConversationRequest]>(WireName.conversationQuery);

/**
 * A human decision on a gated tool call. Recorded durably even when no worker runs; an unknown,
 * already decided or expired approval id is ignored, logged and recorded in the event log.
 */
export const approvalSignal = defineSignal<[ApprovalDecision]>(WireName.approvalSignal);

/** The same decision as an update: its validator refuses an unknown, decided or expired id. */
export const decideApprovalUpdate = defineUpdate<{ approvalId: string; outcome: ApprovalOutcome }, [ApprovalDecision]>(
  WireName.decideApprovalUpdate,
);

/** A user message pushed into a running run; it joins the conversation before the next model call. */
export interface InjectedMessage {
  text: string;
}

/** Fire-and-forget injection (durable without a worker). The client refuses empty text first. */
export const injectMessageSignal = defineSignal<[InjectedMessage]>(WireName.injectMessageSignal);

/** Injection with an answer: the validator refuses empty text; returns the queue position. */
export const injectMessageUpdate = defineUpdate<{ queued: number }, [InjectedMessage]>(WireName.injectMessageUpdate);

/** A batch of skill changes of one source, from the watcher process. */
export const skillsChangedSignal = defineSignal<[SkillBatch]>(WireName.skillsChangedSignal);
