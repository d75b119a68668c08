// Following one A2A task for its push notifications: its workflow's events folded into the task's states, and a long poll on its history between reads.
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Task } from '@a2a-js/sdk';
import { isFinalState, TaskFold } from '../a2a/a2a-task-fold';
import type { A2aPushTask } from '../protocol/a2a-push';
import { eventsQuery } from '../protocol/run-messages';

/** One notification: the task as it was when its state changed, and the event that changed it. */
export interface PushNotice {
  /** The event after which the task was in this state (0: before any event). */
  seq: number;
  task: Task;
}

/** How long one long poll may stay open before it is asked again (the server answers empty after ~20 s). */
const LONG_POLL_DEADLINE_MS = 30_000;

/**
 * The task's states in order, read from its workflow's event log with the same fold the gateways
 * answer tasks with: every change of state (working, input-required, completed, ...) is one
 * notice. Rebuilt from the log alone, so an activity attempt that starts over derives the same
 * notices, in the same order, as the one before it, and resumes by index.
 */
export class TaskFollower {
  readonly notices: PushNotice[] = [];
  private readonly fold: TaskFold;
  private afterSeq: number;
  private runId = '';
  private pageToken: Uint8Array | undefined;
  private closed = false;

  constructor(
    private readonly client: Client,
    private readonly namespace: string,
    private readonly task: A2aPushTask,
  ) {
    const scope = task.turn === null ? ({ kind: 'run' } as const) : ({ kind: 'turn', turn: task.turn, inside: false } as const);
    this.fold = new TaskFold(task.taskId, task.contextId, scope);
    this.afterSeq = task.startSeq;
  }

  /** Whether the task has ended (its last notice is its final state). */
  get final(): boolean {
    return isFinalState(this.fold.taskState);
  }

  /** Reads the events logged since the last read; a closed execution that logged no end ends the task as it closed. */
  async read(): Promise<void> {
    const workflow = this.client.workflow.getHandle(this.task.workflowId);
    for (;;) {
      const page = await workflow.query(eventsQuery, this.afterSeq, 500);
      for (const event of page.events) {
        const before = this.fold.taskState;
        this.fold.apply(event);
        this.afterSeq = event.seq;
        if (this.fold.taskState !== before) this.notices.push({ seq: event.seq, task: this.fold.task() });
      }
      if (page.events.length === 0 || page.finished || this.final) break;
    }
    if (!this.final && this.closed) {
      const description = await workflow.describe();
      if (description.status.name !== 'RUNNING' && description.status.name !== 'CONTINUED_AS_NEW') {
        this.fold.closed(description.status.name, Date.now());
        this.notices.push({ seq: this.afterSeq, task: this.fold.task() });
      }
    }
  }

  /**
   * Waits until the workflow's history grows (Temporal's long poll, `waitNewEvent`), across
   * continue-as-new, or until about 30 seconds pass: an idle task costs a few requests a minute
   * and nothing in any history.
   */
  async waitForChange(signal: AbortSignal): Promise<void> {
    if (this.closed) return;
    const response = await this.client
      .withAbortSignal(signal, () =>
        this.client.withDeadline(Date.now() + LONG_POLL_DEADLINE_MS, () =>
          this.client.workflowService.getWorkflowExecutionHistory({
            namespace: this.namespace,
            execution: { workflowId: this.task.workflowId, runId: this.runId },
            nextPageToken: this.pageToken,
            waitNewEvent: true,
            maximumPageSize: 500,
          }),
        ),
      )
      .catch((error: unknown) => {
        // The long poll's own deadline: nothing new, read again.
        if (signal.aborted) throw error;
        return null;
      });
    if (response === null) return;
    const EventType = temporal.api.enums.v1.EventType;
    let continuedAs: string | null = null;
    for (const event of response.history?.events ?? []) {
      if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED && this.runId === '')
        this.runId = event.workflowExecutionStartedEventAttributes?.originalExecutionRunId ?? '';
      if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW)
        continuedAs = event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? null;
    }
    // A running execution's long poll always answers a token to go on with; none: its history ended.
    if (response.nextPageToken?.length) {
      this.pageToken = response.nextPageToken;
      return;
    }
    this.pageToken = undefined;
    if (continuedAs !== null) this.runId = continuedAs;
    else this.closed = true;
  }
}
