// Which run or thread turn an A2A task id names, and the task read back from that workflow's event log (no task store).
import { WorkflowNotFoundError } from '@temporalio/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { AgentClient } from '../client/agent-client';
import { AgentNameAttribute } from '../protocol/search-attributes';
import { eventsQuery } from '../protocol/run-messages';
import { WireName } from '../protocol/wire-names';
import type { FeedRegistry } from '../gateway/streams/feed-registry';
import { turnStartCursor } from '../gateway/streams/turn-streams';
import { TaskFold, type TaskScope } from './a2a-task-fold';

/** A task's workflow: a run (task id = context id = its workflow id) or one turn of a thread (context id = the thread's id). */
export interface TaskTarget {
  taskId: string;
  contextId: string;
  workflowId: string;
  /** The turn of a thread's task; null for a run's. */
  turn: number | null;
  /**
   * The workflow's chain of executions (`<id>/<first run id>`), once described: a turn's start in
   * the log is kept per chain, so a thread deleted and made again under its id is not mistaken for the old one.
   */
  chain?: string;
}

/** The task id of turn `turn` of thread `threadId`: `<threadId>#<turn>`. */
export function turnTaskId(threadId: string, turn: number): string {
  return `${threadId}#${turn}`;
}

/** The target of a run task. */
export function runTarget(workflowId: string): TaskTarget {
  return { taskId: workflowId, contextId: workflowId, workflowId, turn: null };
}

/** The target of a turn task. */
export function turnTarget(threadId: string, turn: number): TaskTarget {
  return { taskId: turnTaskId(threadId, turn), contextId: threadId, workflowId: threadId, turn };
}

/** What a task read needs. */
export interface TaskReadContext {
  agents: AgentClient;
  feeds: FeedRegistry;
  /** The agent whose endpoint was called: a task of another agent is not found here. */
  agent: string;
}

/**
 * The run or turn task `taskId` names, after checking its workflow is this agent's run or thread.
 * @throws TaskNotFoundError (-32001) for an id that names no such run or turn of this agent.
 */
export async function locateTask(
  context: TaskReadContext,
  taskId: string,
): Promise<{ target: TaskTarget; closed: string | null; taskQueue: string }> {
  const hash = taskId.lastIndexOf('#');
  const turn = hash > 0 ? Number(taskId.slice(hash + 1)) : NaN;
  const asTurn = Number.isInteger(turn) && turn >= 1 ? turnTarget(taskId.slice(0, hash), turn) : null;
  for (const target of asTurn ? [asTurn, runTarget(taskId)] : [runTarget(taskId)]) {
    const description = await context.agents
      .getRun(target.workflowId)
      .workflow.describe()
      .catch((error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return null;
        throw error;
      });
    if (!description || description.typedSearchAttributes.get(AgentNameAttribute) !== context.agent) continue;
    const wanted = target.turn === null ? WireName.agentRunWorkflow : WireName.agentThreadWorkflow;
    if (description.type !== wanted) continue;
    const chain = `${target.workflowId}/${description.raw.workflowExecutionInfo?.firstRunId ?? description.runId}`;
    return {
      target: { ...target, chain },
      closed: description.status.name === 'RUNNING' ? null : description.status.name,
      taskQueue: description.taskQueue,
    };
  }
  throw new TaskNotFoundError(`No task '${taskId}' of agent '${context.agent}' (a task id is a run's id or <thread id>#<turn>)`);
}

/** A task as its log says now, and the event it was read up to (a stream continues after it). */
export interface TaskSnapshot {
  fold: TaskFold;
  afterSeq: number;
  /** The event the task's log starts after (a turn's start in its thread's log), when it was read from the log. */
  startSeq?: number;
}

/**
 * Reads the task from its workflow's event log: a run's events from the start, a turn's from just
 * before it entered the thread's log. A closed execution whose log has no end (cancelled,
 * terminated) ends the task as it closed.
 * @throws TaskNotFoundError for a turn the thread's log no longer holds or never had.
 */
export async function readTask(context: TaskReadContext, target: TaskTarget, closed: string | null): Promise<TaskSnapshot> {
  let startSeq = 0;
  let scope: TaskScope = { kind: 'run' };
  if (target.turn !== null) {
    const turn = target.turn;
    const found = await context.feeds.turnStart(target.chain ?? target.workflowId, turn, () =>
      turnStartCursor(context.agents, target.workflowId, turn),
    );
    if (found === null) throw new TaskNotFoundError(`Thread '${target.workflowId}' has no turn ${turn} in its log (a turn not sent yet, or too old)`);
    startSeq = found;
    scope = { kind: 'turn', turn, inside: false };
  }
  const fold = new TaskFold(target.taskId, target.contextId, scope);
  const workflow = context.agents.getRun(target.workflowId).workflow;
  let afterSeq = startSeq;
  for (;;) {
    const page = await workflow.query(eventsQuery, afterSeq, 500);
    for (const event of page.events) {
      fold.apply(event);
      afterSeq = event.seq;
    }
    if (page.events.length === 0 || page.finished) break;
  }
  if (closed !== null) fold.closed(closed, Date.now());
  return { fold, afterSeq, startSeq };
}
