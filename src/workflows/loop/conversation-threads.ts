import type { CarriedConversation, ConversationBase } from '../../protocol/conversation-base';
import type { Message } from '../../protocol/messages';
import type { ConversationRequest } from '../../protocol/run-messages';
import type { ConversationRef, ConversationSlice, ConversationThread } from '../../protocol/run-types';
import { compactedMessages, compactionKeepFrom } from '../rules/compaction-rules';
import { lastAssistantText } from '../../protocol/assistant-text';

/** A `conversation` query answer stays well below the 4 MB of a gRPC message: readers page. */
export const MAX_SLICE_CHARACTERS = 1_000_000;

/**
 * Messages added since the previous model step travel in the next step's input when their JSON
 * is at most this long: the worker that ran the previous step then needs no `conversation` query
 * (a round trip through the server and a workflow task). Larger additions are read by query, so
 * no step's input grows the history by more than this.
 */
export const MAX_RECENT_CHARACTERS = 2_048;

/**
 * A system prompt up to this long travels in the first reference of its revision (the run's first
 * step, and the step after a skill change), so that no worker needs to ask for it; longer ones are
 * read by query.
 */
export const MAX_SYSTEM_CHARACTERS = 16_384;

interface Thread {
  epoch: number;
  /** Bumped by any change other than appending: readers' cached copies of older revisions are stale. */
  revision: number;
  /** The message count of the last reference handed out: later messages are the next one's `recent`. */
  referenced: number;
  /** The revision of the last reference handed out (-1 before the first): a new one carries the system prompt. */
  referencedRevision: number;
  system: string;
  /** Messages [0, base.count) live in the run this one continues; none when the run holds them all. */
  base: ConversationBase | null;
  /** With a base: the messages up to and including the task (compaction keeps them). */
  head: Message[];
  /** With a base: the last assistant text among the base's messages. */
  baseLastAssistantText: string;
  /** Messages from index `base.count` (or 0) on. */
  messages: Message[];
}

/**
 * The run's conversations: the executor's, and the planner's own transcript, which never mixes
 * into the executor's. Model steps read them through the `conversation` query; an epoch changes
 * when a conversation is rewritten (compaction), so cached copies in workers are dropped. A run
 * that continued as new holds only what it added: the rest is its `base`, read from the previous
 * run by the reader, so no payload ever carries a long conversation.
 */
export class ConversationThreads {
  private readonly threads: Record<ConversationThread, Thread>;

  constructor(executorSystem: string, executorMessages: Message[], carried?: CarriedConversation, epoch = 0) {
    this.threads = {
      executor: carried
        ? {
            ...emptyThread(executorSystem, epoch),
            base: carried.base,
            head: carried.head,
            baseLastAssistantText: carried.lastAssistantText,
            messages: executorMessages,
          }
        : { ...emptyThread(executorSystem, epoch), messages: executorMessages },
      planner: emptyThread('', 0),
    };
  }

  /** Messages this run holds (with a base, those after it: index `offset` on). */
  held(thread: ConversationThread = 'executor'): { offset: number; messages: Message[] } {
    const current = this.threads[thread];
    return { offset: current.base?.count ?? 0, messages: current.messages };
  }

  /** Messages of the conversation in all, the base's included. */
  count(thread: ConversationThread = 'executor'): number {
    const current = this.threads[thread];
    return (current.base?.count ?? 0) + current.messages.length;
  }

  push(thread: ConversationThread, message: Message): void {
    this.threads[thread].messages.push(message);
  }

  /** Replaces a message this run holds (the planner rewrites the task before the first step). */
  replace(thread: ConversationThread, index: number, message: Message): void {
    const { offset, messages } = this.held(thread);
    messages[index - offset] = message;
    this.threads[thread].revision++;
  }

  start(thread: ConversationThread, system: string, messages: Message[]): void {
    this.threads[thread] = { ...emptyThread(system, this.threads[thread].epoch + 1), messages };
  }

  /** A new system prompt (skills changed); the messages stay. */
  setSystem(thread: ConversationThread, system: string): void {
    this.threads[thread].system = system;
    this.threads[thread].revision++;
  }

  /** The last assistant text of the conversation ('' when there is none). */
  lastAssistantText(thread: ConversationThread = 'executor'): string {
    const current = this.threads[thread];
    return lastAssistantText(current.messages) || current.baseLastAssistantText;
  }

  /**
   * Where compaction's kept part starts, or null when there is nothing to summarise. With a base,
   * never inside it unless at its end: a continuation starts between steps, so its first held
   * message opens a turn.
   */
  compactionKeepFrom(taskIndex: number): number | null {
    const { offset, messages } = this.held('executor');
    if (offset === 0) return compactionKeepFrom(messages, taskIndex);
    const keepFrom = compactionKeepFrom(messages, -1);
    return keepFrom === null ? offset : offset + keepFrom;
  }

  /** The executor's conversation after compaction: up to the task, the summary, the turns from `keepFrom`. Held whole: a new epoch. */
  compact(taskIndex: number, keepFrom: number, summary: string): { removedMessages: number } {
    const current = this.threads.executor;
    const { offset, messages } = this.held('executor');
    // With a base, the held messages are preceded by the head: the same cut, shifted.
    const compacted = current.base
      ? compactedMessages([...current.head, ...messages.slice(keepFrom - offset)], taskIndex, taskIndex + 1, summary)
      : compactedMessages(messages, taskIndex, keepFrom, summary);
    this.threads.executor = { ...emptyThread(current.system, current.epoch + 1), messages: compacted };
    return { removedMessages: keepFrom - taskIndex - 1 };
  }

  /** A reference to the conversation as it is now, for an activity that reads it. */
  ref(thread: ConversationThread): ConversationRef {
    const current = this.threads[thread];
    const count = this.count(thread);
    const recent = this.recentSinceLastRef(current, count);
    const system = current.referencedRevision !== current.revision && current.system.length <= MAX_SYSTEM_CHARACTERS ? current.system : undefined;
    current.referenced = count;
    current.referencedRevision = current.revision;
    return {
      ...(thread === 'executor' ? {} : { thread }),
      epoch: current.epoch,
      count,
      revision: current.revision,
      ...(system !== undefined ? { system } : {}),
      ...(recent ? { recent } : {}),
    };
  }

  /** The messages added since the last reference, when they are few and small; else undefined. */
  private recentSinceLastRef(current: Thread, count: number): Message[] | undefined {
    const offset = current.base?.count ?? 0;
    // Messages of the base are never resent: a reader that lacks them reads the snapshot.
    if (current.referenced < offset) return undefined;
    const added = current.messages.slice(current.referenced - offset, count - offset);
    let characters = 0;
    for (const message of added) {
      characters += JSON.stringify(message).length;
      if (characters > MAX_RECENT_CHARACTERS) return undefined;
    }
    return added;
  }

  /** What a continuation needs to read this conversation later: the snapshot of it in the artifact store as its base. */
  carry(snapshotArtifactId: string, taskIndex: number): CarriedConversation {
    const current = this.threads.executor;
    const { messages } = this.held('executor');
    return {
      base: { artifactId: snapshotArtifactId, count: this.count('executor') },
      head: current.base ? current.head : messages.slice(0, taskIndex + 1),
      lastAssistantText: this.lastAssistantText('executor'),
    };
  }

  /**
   * The answer to the `conversation` query: messages `from` .. `count` of epoch `epoch`, at most
   * MAX_SLICE_CHARACTERS of them (at least one; the reader asks again from where it ends), or,
   * for messages of the base, where to read them. Absent fields take the default view: the current
   * epoch, from the first message this run holds to the last.
   */
  slice(request: ConversationRequest): ConversationSlice {
    const thread = request.thread ?? 'executor';
    const current = this.threads[thread];
    const offset = current.base?.count ?? 0;
    const { epoch = current.epoch, from = offset, count = this.count(thread) } = request;
    const answer = { epoch: current.epoch, revision: current.revision, system: current.system, from };
    if (epoch !== current.epoch) return { ...answer, messages: [] };
    if (current.base && from < offset) return { ...answer, messages: [], base: current.base };
    const wanted = current.messages.slice(from - offset, count - offset);
    let characters = 0;
    let end = 0;
    while (end < wanted.length && (end === 0 || characters + JSON.stringify(wanted[end]).length <= MAX_SLICE_CHARACTERS)) {
      characters += JSON.stringify(wanted[end]).length;
      end++;
    }
    return { ...answer, messages: end === wanted.length ? wanted : wanted.slice(0, end) };
  }
}

function emptyThread(system: string, epoch: number): Thread {
  return { epoch, revision: 0, referenced: 0, referencedRevision: -1, system, base: null, head: [], baseLastAssistantText: '', messages: [] };
}
