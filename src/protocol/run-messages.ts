import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { EventPage } from './run-events';
import type { ApprovalDecision, ApprovalOutcome, ConversationSlice, ConversationThread, RunStatus } from './run-types';
import { WireName } from './wire-names';
import type { SkillBatch } from './skill-types';

// Signal, query and update definitions of an agent run, shared by the workflow and the client
// (defining them is pure, so this module is safe on both sides). Their wire names are `WireName`'s.

/**
 * The descriptions of the run's signals, queries and updates, as the workflow registers them:
 * `temporal workflow metadata` and the Web UI show them. docs/messages.md lists their shapes.
 */
export const MessageDescription = {
  status:
    'The run now: { phase, step, maxSteps (the last step this agent may take), activeTools, runningTools, usage, messageCount, stopReason, pendingApprovals, plan, budget, queuedMessages, skills }. No arguments.',
  events:
    "The run's events after a cursor: args (cursor: number = 0, limit?: number = 200); returns { events, nextCursor, missed, finished }. Pass nextCursor back to read on.",
  conversation:
    'Messages of the run\'s conversation (read by its own model steps): optional arg { thread?: "executor" | "planner", epoch?, from?, count? } (none: the current conversation); returns { epoch, system, from, messages, base? }.',
  approval:
    'Decide a gated tool call: { approvalId: string, decision: "approve" | "reject", reason?: string, decidedBy?: string }. Durable without a worker; an invalid, unknown, decided or expired decision is ignored and recorded as an approval-ignored event.',
  decideApproval:
    'Decide a gated tool call and get the outcome: { approvalId, decision: "approve" | "reject", reason?, decidedBy? } → { approvalId, outcome }. Refused (ApprovalRefused / InvalidMessage) when it cannot apply. Needs a worker.',
  injectMessage:
    'Add a user message before the next model call: { text: string } (not blank, at most 100,000 characters). Durable without a worker; an invalid one is ignored and recorded as a signal-ignored event.',
  injectMessageChecked:
    'Add a user message before the next model call: { text } → { queued } (messages waiting). Refused (EmptyMessage / InvalidMessage) when invalid. Needs a worker.',
  skillsChanged:
    'A batch of skill changes of one source, from `durable-agents skills watch`: { source, version, previousHash, hash, changes, errors }. An invalid batch is ignored and recorded as a signal-ignored event.',
} as const;

/**
 * The run's current status (`status`): phase, step, usage, pending approvals, queued messages.
 * Read-only and free of history events; needs a worker to answer. `RunHandle.status()` sends it.
 * @example
 * import { Client } from '@temporalio/client';
 * import { statusQuery } from 'durable-agents/workflow';
 *
 * const client = new Client();
 * const status = await client.workflow.getHandle('support-42').query(statusQuery);
 * console.log(status.phase, status.step, status.pendingApprovals.map((request) => request.approvalId));
 */
export const statusQuery = defineQuery<RunStatus>(WireName.statusQuery);

/**
 * The run's events after `cursor` (0 for all), at most `limit` (default 200), from its bounded live
 * log (`events`). Pass `nextCursor` back to read on; `finished` is true once the run has ended and
 * every event was read. `RunHandle.events()` polls it for you.
 * @example
 * import { eventsQuery } from 'durable-agents/workflow';
 *
 * const handle = client.workflow.getHandle('support-42');
 * let cursor = 0;
 * for (;;) {
 *   const page = await handle.query(eventsQuery, cursor, 100);
 *   for (const event of page.events) console.log(event.seq, event.type);
 *   cursor = page.nextCursor;
 *   if (page.finished) break;
 *   await new Promise((resolve) => setTimeout(resolve, 500));
 * }
 */
export const eventsQuery = defineQuery<EventPage, [cursor: number, limit?: number]>(WireName.eventsQuery);

/**
 * The argument of the `conversation` query: which thread, which epoch, which messages. Every field
 * may be left out (or the whole argument, as the Web UI's Queries tab does): the default view is
 * the executor's current epoch, from the first message the execution holds to the last.
 */
export interface ConversationRequest {
  /** The executor's conversation (default) or the planner's own transcript. */
  thread?: ConversationThread;
  /** The conversation's version: it grows when the conversation is rewritten (compaction). Another epoch gets no messages. Default: the current one. */
  epoch?: number;
  /** Index of the first message to return. Default: the first message this execution holds (0 unless it continued a run). */
  from?: number;
  /** Index after the last message to return (messages `from` .. `count`, exclusive). Default: the conversation's length. */
  count?: number;
}

/**
 * The conversation of a run (`conversation`), read by its own model-step activities so that no
 * activity input ever carries the whole conversation (history grows O(1) per step). A reply always
 * names the current epoch and system prompt; it has messages only when the request's epoch is the
 * current one.
 * @example
 * import { conversationQuery } from 'durable-agents/workflow';
 *
 * const handle = client.workflow.getHandle('support-42');
 * let slice = await handle.query(conversationQuery, { epoch: 0, from: 0, count: 1_000 });
 * // A compacted conversation has a newer epoch: ask again with it.
 * if (slice.epoch !== 0) slice = await handle.query(conversationQuery, { epoch: slice.epoch, from: 0, count: 1_000 });
 * console.log(slice.system, slice.messages.length);
 */
export const conversationQuery = defineQuery<ConversationSlice, [request?: ConversationRequest]>(WireName.conversationQuery);

/**
 * A human decision on a gated tool call (`approval`). Recorded durably even when no worker runs; an
 * unknown, already decided or expired approval id, or a payload with a field of the wrong type or
 * length, is ignored, logged and recorded in the event log (`approval-ignored`), so sending it
 * twice is harmless. Fields: docs/messages.md.
 * @example
 * import { getExternalWorkflowHandle } from '@temporalio/workflow';
 * import { approvalSignal } from 'durable-agents/workflow';
 *
 * // In your workflow, approving a call of an agent it started with startAgent (or any run by id):
 * await getExternalWorkflowHandle(agentWorkflowId).signal(approvalSignal, {
 *   approvalId: 'step-3.call-1',
 *   decision: 'approve',
 *   decidedBy: 'refund-policy',
 * });
 */
export const approvalSignal = defineSignal<[ApprovalDecision]>(WireName.approvalSignal);

/**
 * The same decision as an update (`decideApproval`): its validator refuses an unknown, decided or
 * expired id (`ApprovalRefused`) and a malformed payload (`InvalidMessage`), non-retryable, and
 * nothing is recorded then; otherwise it returns the outcome. Needs a running worker.
 * @example
 * import { decideApprovalUpdate } from 'durable-agents/workflow';
 *
 * const { outcome } = await client.workflow
 *   .getHandle('support-42')
 *   .executeUpdate(decideApprovalUpdate, { args: [{ approvalId: 'step-3.call-1', decision: 'reject', reason: 'Refunds over $500 need a manager' }] });
 */
export const decideApprovalUpdate = defineUpdate<{ approvalId: string; outcome: ApprovalOutcome }, [ApprovalDecision]>(WireName.decideApprovalUpdate);

/** A user message pushed into a running run; it joins the conversation before the next model call. */
export interface InjectedMessage {
  text: string;
}

/**
 * Fire-and-forget injection (`injectMessage`): durable without a worker. The run ignores, logs
 * and records (`signal-ignored`) empty or malformed text; `RunHandle.inject` refuses it before sending.
 * @example
 * import { injectMessageSignal, startAgent } from 'durable-agents/workflow';
 *
 * const agent = await startAgent({ config: { name: 'researcher', model: 'openai:gpt-4o' }, task: 'Summarise the incident' });
 * await agent.signal(injectMessageSignal, { text: 'Include the timeline.' });
 */
export const injectMessageSignal = defineSignal<[InjectedMessage]>(WireName.injectMessageSignal);

/**
 * Injection with an answer (`injectMessageChecked`): the validator refuses empty text
 * (`EmptyMessage`) and a malformed payload (`InvalidMessage`); returns the
 * number of messages now queued for the next model call. Needs a running worker.
 * @example
 * import { injectMessageUpdate } from 'durable-agents/workflow';
 *
 * const { queued } = await client.workflow
 *   .getHandle('support-42')
 *   .executeUpdate(injectMessageUpdate, { args: [{ text: 'The customer is on the premium plan.' }] });
 */
export const injectMessageUpdate = defineUpdate<{ queued: number }, [InjectedMessage]>(WireName.injectMessageUpdate);

/**
 * A batch of skill changes of one source (`skillsChanged`), from the watcher process
 * (`durable-agents skills watch`). A run applies a batch whose `previousHash` matches the skills it
 * has and whose `version` is newer; after a gap (a hash that does not match) it reloads the source
 * before its next model call; older versions and sources it does not follow are ignored.
 * @example
 * import { skillsChangedSignal, statusQuery } from 'durable-agents/workflow';
 *
 * // Make a run reload a source before its next model call, as after a missed batch.
 * const handle = client.workflow.getHandle('support-42');
 * const source = (await handle.query(statusQuery)).skills.find((entry) => entry.source === '/srv/skills');
 * if (source) {
 *   await handle.signal(skillsChangedSignal, { source: source.source, version: source.version + 1, previousHash: 'reload', hash: 'reload', changes: [], errors: [] });
 * }
 */
export const skillsChangedSignal = defineSignal<[SkillBatch]>(WireName.skillsChangedSignal);
