import type { Message } from './messages';

/**
 * How a run that continued as new knows the conversation it continues without carrying it: the
 * first `count` messages of its executor thread are a snapshot the previous run wrote to the
 * artifact store just before it continued (a segment of messages, or an index of segments: see
 * src/artifacts/conversation-snapshots.ts). The store, not the previous
 * run's history, holds it: closed runs are deleted after the namespace's retention period, and a
 * run may wait far longer than that. Snapshots never change, so readers cache them. Pure types.
 */
export interface ConversationBase {
  artifactId: string;
  count: number;
}

/** The bounded conversation state a continued run starts from. */
export interface CarriedConversation {
  base: ConversationBase;
  /** Messages up to and including the task: compaction keeps them, so the run holds them itself. */
  head: Message[];
  /** The last assistant text so far (a run that stops early answers with it). */
  lastAssistantText: string;
}
