// What a task queue's workers said of themselves (their tools, their agents), kept briefly so that many starts ask once.
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** How long a client trusts what a task queue's workers said (workers change on deploys). */
export const WORKER_ANSWER_CACHE_MS = 60_000;

/**
 * Answers of a task queue's workers to one question (asked through a short probe workflow), kept
 * for a minute per task queue: a start that finds no fresh answer while the workers are being
 * asked waits for that answer, so 200 runs started at once ask once. Only answers are kept, never
 * their absence: with no worker polling the queue, or none answering in time, the answer is null
 * and the caller goes ahead (a run waits for a worker durably).
 */
export class WorkerAnswers<T> {
  private readonly known = new Map<string, { answer: T; at: number }>();
  private readonly asking = new Map<string, Promise<T | null>>();

  constructor(
    private readonly client: Client,
    private readonly namespace: string,
    private readonly ask: (taskQueue: string) => Promise<T>,
  ) {}

  /** The workers' answer (cached unless `fresh`), or null when no worker polls the queue or none answered. */
  get(taskQueue: string, options: { fresh?: boolean } = {}): Promise<T | null> {
    const cached = this.known.get(taskQueue);
    if (!options.fresh && cached && Date.now() - cached.at < WORKER_ANSWER_CACHE_MS) return Promise.resolve(cached.answer);
    const pending = this.asking.get(taskQueue);
    if (pending) return pending;
    const asked = this.askWorkersOf(taskQueue).finally(() => this.asking.delete(taskQueue));
    this.asking.set(taskQueue, asked);
    return asked;
  }

  private async askWorkersOf(taskQueue: string): Promise<T | null> {
    if (!(await this.hasPollers(taskQueue))) return null;
    try {
      const answer = await this.ask(taskQueue);
      this.known.set(taskQueue, { answer, at: Date.now() });
      return answer;
    } catch {
      return null;
    }
  }

  /**
   * Whether a worker polled the queue for workflow tasks lately (the server keeps pollers for a few
   * minutes). A server that cannot say (restarting, or an API key without the right) counts as no:
   * the start itself then reports what is wrong.
   */
  private async hasPollers(taskQueue: string): Promise<boolean> {
    try {
      const described = await this.client.workflowService.describeTaskQueue({
        namespace: this.namespace,
        taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
      return (described.pollers?.length ?? 0) > 0;
    } catch {
      return false;
    }
  }
}
