// A task's state built from the run's (or turn's) event log alone: the same on every gateway, and what a stream sends as it changes.
import { Role, TaskState, type Artifact, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { RunEvent } from '../protocol/run-events';
import type { ApprovalRequest } from '../protocol/run-status-types';

/** Which events of a workflow's log are the task's: a whole run, or one turn of a thread. */
export type TaskScope =
  | { kind: 'run' }
  /** `inside`: every event logged after the start cursor is this turn's (its message started it or was injected into it). */
  | { kind: 'turn'; turn: number; inside: boolean };

/** The id of the artifact that holds the answer (the run's or turn's output). */
export const ANSWER_ARTIFACT_ID = 'answer';

/** A text part. */
export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

/** A data part (structured content: approvals, tool calls). */
export function dataPart(value: Record<string, unknown>): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

/** The states after which a task changes no more. */
const FINAL_STATES: ReadonlySet<TaskState> = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED]);

/** Whether `state` is final (completed, failed, canceled). */
export function isFinalState(state: TaskState): boolean {
  return FINAL_STATES.has(state);
}

/**
 * Folds a workflow's events into one A2A task: its state, the user's message, pending approvals
 * and the answer. Built from the event log only (plus how the execution closed, for a cancel or
 * a termination, which log nothing), so any gateway process derives the same task, and a stream
 * that resumes sends a snapshot and then exactly the updates after it.
 */
export class TaskFold {
  private state: TaskState = TaskState.TASK_STATE_SUBMITTED;
  private statusMessage: Message | undefined;
  private timestamp: string | undefined;
  private userText: string | null = null;
  private answer: string | null = null;
  private inScope: boolean;
  private readonly pending = new Map<string, ApprovalRequest>();
  private stopReason: string | null = null;

  constructor(
    readonly taskId: string,
    readonly contextId: string,
    private readonly scope: TaskScope,
  ) {
    this.inScope = scope.kind === 'run' || scope.inside;
  }

  /** The task's state now. */
  get taskState(): TaskState {
    return this.state;
  }

  /** The approvals the task waits for, oldest first. */
  get pendingApprovals(): ApprovalRequest[] {
    return [...this.pending.values()];
  }

  /** Whether the task waits for input (an approval) with every approval of the wait logged. */
  get waitsForInput(): boolean {
    return this.state === TaskState.TASK_STATE_INPUT_REQUIRED;
  }

  /** The task as `GetTask` answers it. */
  task(): Task {
    return {
      id: this.taskId,
      contextId: this.contextId,
      status: { state: this.state, message: this.statusMessage, timestamp: this.timestamp },
      artifacts: this.answer !== null ? [this.answerArtifact()] : [],
      history: this.userText !== null ? [this.message(Role.ROLE_USER, 'user', [textPart(this.userText)])] : [],
      metadata: this.stopReason !== null ? { stopReason: this.stopReason } : undefined,
    };
  }

  /** Applies one event; returns the stream updates it makes (none for events outside the task or that change nothing a caller sees). */
  apply(event: RunEvent): StreamResponse[] {
    const scope = this.scope;
    if (isFinalState(this.state)) return [];
    if (scope.kind === 'turn') {
      if (event.type === 'message-queued' && event.turn === scope.turn) this.userText ??= event.text;
      if (event.type === 'turn-started') this.inScope = event.turn === scope.turn;
      if (event.type === 'thread-closed') return this.finish(TaskState.TASK_STATE_CANCELED, `The thread closed (${event.reason})`, event.at);
    }
    if (!this.inScope) return [];
    this.timestamp = new Date(event.at).toISOString();
    switch (event.type) {
      case 'run-started':
        this.userText = event.task;
        return this.working(null, event.seq);
      case 'turn-started':
        this.userText = event.text;
        return this.working(null, event.seq);
      case 'tool-called':
        return this.working(`Calling ${event.call.name}`, event.seq, { event: 'tool-called', tool: event.call.name, args: event.call.args });
      case 'text-produced':
        return event.text.trim() ? this.working(event.text, event.seq) : [];
      case 'approval-requested':
        this.pending.set(event.request.approvalId, event.request);
        return this.inputRequired(event.seq);
      case 'approval-decided':
      case 'approval-ignored': {
        if (!this.pending.delete(event.approvalId)) return [];
        if (this.pending.size > 0) return this.inputRequired(event.seq);
        const how = event.type === 'approval-decided' ? `${event.outcome.replace('_', ' ')} by ${event.decidedBy ?? 'its timeout'}` : 'ignored';
        return this.working(`${event.approvalId} ${how}`, event.seq, {
          event: 'approval-decided',
          approvalId: event.approvalId,
          outcome: event.type === 'approval-decided' ? event.outcome : 'ignored',
          decidedBy: event.type === 'approval-decided' ? event.decidedBy : null,
        });
      }
      case 'run-completed':
        return this.complete(event.output, event.stopReason, event.at);
      case 'turn-completed':
        if (scope.kind !== 'turn' || event.turn !== scope.turn) return [];
        if (event.stopReason === 'failed') return this.finish(TaskState.TASK_STATE_FAILED, event.output || 'The turn failed', event.at);
        if (event.stopReason === 'interrupted') return this.finish(TaskState.TASK_STATE_CANCELED, 'A newer message interrupted the turn', event.at);
        return this.complete(event.output, event.stopReason, event.at);
      case 'run-failed':
        return this.finish(TaskState.TASK_STATE_FAILED, `${event.failureType ?? 'Failed'}: ${event.message}`, event.at);
      default:
        return [];
    }
  }

  /**
   * The execution closed without a final event in the log (cancelled, terminated, timed out):
   * the task ends as the close says. Returns the final update, or none when the log had ended it.
   */
  closed(execution: string, at: number): StreamResponse[] {
    if (isFinalState(this.state)) return [];
    const state = execution === 'CANCELLED' ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED;
    return this.finish(state, `The execution ended: ${execution.toLowerCase()}`, at);
  }

  /** Working, with what just happened (message ids carry the event's seq: the same on every gateway, one per event). */
  private working(text: string | null, seq: number, data?: Record<string, unknown>): StreamResponse[] {
    this.state = TaskState.TASK_STATE_WORKING;
    const parts = [...(text !== null ? [textPart(text)] : []), ...(data ? [dataPart(data)] : [])];
    this.statusMessage = parts.length > 0 ? this.message(Role.ROLE_AGENT, `status-${seq}`, parts) : undefined;
    return [this.statusUpdate()];
  }

  private inputRequired(seq: number): StreamResponse[] {
    this.state = TaskState.TASK_STATE_INPUT_REQUIRED;
    const approvals = this.pendingApprovals;
    const lines = approvals.map((request) => `${request.toolName}(${JSON.stringify(request.args)}) [${request.approvalId}]`);
    const text = `Approval needed before ${lines.join(', ')}. Reply "approve" or "reject <reason>" on this task (or a data part { decision, reason, approvalId? }).`;
    const data = {
      event: 'approval-requested',
      approvals: approvals.map(({ approvalId, toolName, args, expiresAt }) => ({
        approvalId,
        toolName,
        args,
        expiresAt: new Date(expiresAt).toISOString(),
      })),
    };
    this.statusMessage = this.message(Role.ROLE_AGENT, `status-${seq}`, [textPart(text), dataPart(data)]);
    return [this.statusUpdate()];
  }

  private complete(output: string, stopReason: string, at: number): StreamResponse[] {
    this.answer = output;
    this.stopReason = stopReason;
    const artifact: StreamResponse = {
      payload: {
        $case: 'artifactUpdate',
        value: {
          taskId: this.taskId,
          contextId: this.contextId,
          artifact: this.answerArtifact(),
          append: false,
          lastChunk: true,
          metadata: undefined,
        },
      },
    };
    return [artifact, ...this.finish(TaskState.TASK_STATE_COMPLETED, output, at)];
  }

  private finish(state: TaskState, text: string, at: number): StreamResponse[] {
    this.state = state;
    this.pending.clear();
    this.timestamp = new Date(at).toISOString();
    this.statusMessage = this.message(Role.ROLE_AGENT, 'final', [textPart(text)]);
    return [this.statusUpdate()];
  }

  private statusUpdate(): StreamResponse {
    return {
      payload: {
        $case: 'statusUpdate',
        value: {
          taskId: this.taskId,
          contextId: this.contextId,
          status: { state: this.state, message: this.statusMessage, timestamp: this.timestamp },
          metadata: undefined,
        },
      },
    };
  }

  private answerArtifact(): Artifact {
    return {
      artifactId: ANSWER_ARTIFACT_ID,
      name: 'answer',
      description: 'The agent’s answer',
      parts: [textPart(this.answer ?? '')],
      metadata: this.stopReason !== null ? { stopReason: this.stopReason } : undefined,
      extensions: [],
    };
  }

  /** A message with an id derived from the task and what it says, so every gateway names it alike. */
  private message(role: Role, suffix: string, parts: Part[]): Message {
    return {
      messageId: `${this.taskId}:${suffix}`,
      contextId: this.contextId,
      taskId: this.taskId,
      role,
      parts,
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
  }
}
