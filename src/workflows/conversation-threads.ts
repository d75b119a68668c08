import type { Message } from '../shared/messages';
import type { ConversationRequest } from '../shared/run-messages';
import type { ConversationRef, ConversationSlice, ConversationThread } from '../shared/run-types';

interface Thread {
  epoch: number;
  system: string;
  messages: Message[];
}

/**
 * The run's conversations: the executor's, and the planner's own transcript, which never mixes
 * into the executor's. Model steps read them through the `conversation` query; an epoch changes
 * when a conversation is rewritten (compaction), so cached copies in workers are dropped.
 */
export class ConversationThreads {
  private readonly threads: Record<ConversationThread, Thread>;

  constructor(executorSystem: string, executorMessages: Message[]) {
    this.threads = {
      executor: { epoch: 0, system: executorSystem, messages: executorMessages },
      planner: { epoch: 0, system: '', messages: [] },
    };
  }

  messages(thread: ConversationThread = 'executor'): Message[] {
    return this.threads[thread].messages;
  }

  push(thread: ConversationThread, message: Message): void {
    this.threads[thread].messages.push(message);
  }

  start(thread: ConversationThread, system: string, messages: Message[]): void {
    this.threads[thread] = { epoch: this.threads[thread].epoch + 1, system, messages };
  }

  /** A new system prompt (skills changed); the messages stay. */
  setSystem(thread: ConversationThread, system: string): void {
    this.threads[thread].system = system;
  }

  /** Replaces a thread's messages (compaction): a new epoch. */
  rewrite(thread: ConversationThread, messages: Message[]): void {
    const current = this.threads[thread];
    this.threads[thread] = { ...current, epoch: current.epoch + 1, messages };
  }

  ref(thread: ConversationThread): ConversationRef {
    const current = this.threads[thread];
    return { ...(thread === 'executor' ? {} : { thread }), epoch: current.epoch, count: current.messages.length };
  }

  /** The answer to the `conversation` query. */
  slice({ thread = 'executor', epoch, from, count }: ConversationRequest): ConversationSlice {
    const current = this.threads[thread];
    return {
      epoch: current.epoch,
      system: current.system,
      from,
      messages: epoch === current.epoch ? current.messages.slice(from, count) : [],
    };
  }
}
