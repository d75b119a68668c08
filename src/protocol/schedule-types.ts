// What a schedule's thread post carries: the workflow's input, the activity's request and receipt; and the search attribute naming a run's schedule. Sandbox-safe.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { AgentThreadInput, ThreadMessageReceipt } from './thread-types';

/**
 * Temporal's own search attribute on every workflow a schedule started: the schedule's id. It is
 * built into the server (no `setup` needed), so `agents.schedules.runsOf(id)` finds a schedule's
 * runs with `TemporalScheduledById = '<id>'`, and so does the Web UI or `temporal workflow list --query`.
 */
export const TemporalScheduledByIdAttribute = defineSearchAttributeKey('TemporalScheduledById', SearchAttributeType.KEYWORD);

/** How a thread that does not exist yet is created by a schedule's post (prepared by the client when the schedule is created). */
export interface ThreadPostCreation {
  input: AgentThreadInput;
  /** The thread's resource (`AgentResource`), if any. */
  resourceId: string | null;
}

/**
 * The `scheduledThreadPost` workflow's input: the message a thread schedule posts on each fire.
 * Without `creation`, the thread must exist (a post to a missing one fails with `ThreadNotFound`).
 */
export interface ScheduledThreadPostInput {
  threadId: string;
  text: string;
  /** The config's fingerprints the thread checks the message against (`ThreadConfigMismatch`), as `ThreadHandle.send` sends them. */
  configHash?: string;
  parsedConfigHash?: string;
  creation?: ThreadPostCreation;
}

/** What the `postThreadMessage` activity takes: the post, its message id (one per fire) and the thread's task queue. */
export interface ThreadPostRequest extends ScheduledThreadPostInput {
  /** Stable for one fire (derived from the scheduled workflow's id), so a retried post is answered once. */
  messageId: string;
  /** The task queue a created thread runs on: the schedule's. */
  taskQueue: string;
}

/** What a post returns (and the `scheduledThreadPost` workflow's result): the thread and the turn that answers the message. */
export interface ThreadPostReceipt extends Pick<ThreadMessageReceipt, 'messageId' | 'turn' | 'disposition' | 'duplicate'> {
  threadId: string;
}
