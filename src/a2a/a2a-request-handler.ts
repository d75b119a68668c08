// The A2A methods of one exposed agent over the client library: a message starts a run or a thread's turn, or answers a task's approval.
import { WorkflowNotFoundError } from '@temporalio/client';
import type {
  AgentCard,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import {
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { decideApproval } from '../console/console-actions';
import { requireScope, type Principal } from '../gateway/gateway-auth';
import { decisionRefused } from '../gateway/chat-routes';
import type { GatewayAccess } from '../gateway/gateway-access';
import type { DecisionSigningKey } from '../decisions/decision-keys';
import { AgentNameAttribute } from '../protocol/search-attributes';
import { WireName } from '../protocol/wire-names';
import { approvalAnswerOf, messageText } from './a2a-answers';
import { skillIds } from './a2a-agent-card';
import { isFinalState, TaskFold } from './a2a-task-fold';
import { locateTask, readTask, runTarget, turnTarget, type TaskReadContext, type TaskSnapshot, type TaskTarget } from './a2a-task-reads';
import { taskStream } from './a2a-task-stream';
import type { AgentOffer } from '../protocol/agent-offers';
import { A2aPushConfigs, type A2aPushSettings, type PreparedPushConfig, type PushWireVersion } from './a2a-push-configs';

/** What one request's handler works with: the caller, its agent, and the gateway's shared pieces. */
export interface A2aCall extends TaskReadContext {
  principal: Principal;
  access: GatewayAccess;
  offer: AgentOffer;
  card: AgentCard;
  decisionKey?: DecisionSigningKey | undefined;
  /** Push notifications, when the gateway has push keys; without them the push methods answer PushNotificationNotSupported. */
  push?: A2aPushSettings | undefined;
  /** Aborts when the caller goes away: a stream ends, a blocking send stops waiting (the task goes on). */
  signal: AbortSignal;
}

/** A task as a message left it, ready to stream: where it is, its snapshot, the approvals the message decided. */
interface Begun {
  target: TaskTarget;
  snapshot: TaskSnapshot;
  decided?: ReadonlySet<string>;
}

/** How long a cancel waits for the run to end before answering with the task as it is. */
const CANCEL_WAIT_MS = 10_000;

/**
 * The A2A request handler of one agent for one caller (built per request: it holds no state). Tasks
 * are the agent's runs (a message without `contextId`) and its threads' turns (a message with one:
 * the thread of that id, created by the message when it does not exist); every read is derived from
 * the workflow, so any gateway process answers for any task.
 */
export class A2aAgentHandler implements A2ARequestHandler {
  constructor(private readonly call: A2aCall) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.call.card;
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError('This agent has one card for every caller');
  }

  async sendMessage(params: SendMessageRequest, context?: ServerCallContext): Promise<Message | Task> {
    const begun = await this.beginWithPush(params, context);
    if (params.configuration?.returnImmediately) return begun.snapshot.fold.task();
    for await (const update of taskStream(this.call, begun.target, begun.snapshot, this.streamOptions(begun))) void update;
    return begun.snapshot.fold.task();
  }

  async *sendMessageStream(params: SendMessageRequest, context?: ServerCallContext): AsyncGenerator<StreamResponse> {
    const begun = await this.beginWithPush(params, context);
    yield* taskStream(this.call, begun.target, begun.snapshot, this.streamOptions(begun));
  }

  async getTask(params: { id: string }): Promise<Task> {
    const { target, closed } = await locateTask(this.call, params.id);
    return (await readTask(this.call, target, closed)).fold.task();
  }

  async cancelTask(params: { id: string }): Promise<Task> {
    const { target, closed } = await locateTask(this.call, params.id);
    const snapshot = await readTask(this.call, target, closed);
    if (target.turn !== null)
      throw new TaskNotCancelableError(
        `Task '${target.taskId}' is a turn of thread '${target.contextId}': a turn is not cancelled alone (the thread goes on); a run's task is`,
      );
    if (isFinalState(snapshot.fold.taskState)) throw new TaskNotCancelableError(`Task '${target.taskId}' has ended: nothing to cancel`);
    await this.call.agents.getRun(target.workflowId).workflow.cancel();
    // The cancel is recorded; the task is answered once the run has ended, or as it is after a while.
    const signal = AbortSignal.any([this.call.signal, AbortSignal.timeout(CANCEL_WAIT_MS)]);
    for await (const update of taskStream(this.call, target, snapshot, { signal, untilFinal: true })) void update;
    return snapshot.fold.task();
  }

  async *resubscribe(params: { id: string }): AsyncGenerator<StreamResponse> {
    const { target, closed } = await locateTask(this.call, params.id);
    yield* taskStream(this.call, target, await readTask(this.call, target, closed), { signal: this.call.signal });
  }

  async listTasks(): Promise<never> {
    throw new UnsupportedOperationError('ListTasks is not offered: the gateway lists runs and threads at GET /v1/...');
  }

  async createTaskPushNotificationConfig(params: TaskPushNotificationConfig, context?: ServerCallContext): Promise<TaskPushNotificationConfig> {
    return this.pushConfigs().create(params, wireVersionOf(context));
  }

  async getTaskPushNotificationConfig(params: GetTaskPushNotificationConfigRequest): Promise<TaskPushNotificationConfig> {
    return this.pushConfigs().get(params.taskId, params.id);
  }

  async listTaskPushNotificationConfigs(params: ListTaskPushNotificationConfigsRequest): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.pushConfigs().list(params.taskId);
  }

  async deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    await this.pushConfigs().delete(params.taskId, params.id);
  }

  /** The task's push configs, or PushNotificationNotSupported when this gateway has no push keys. */
  private pushConfigs(): A2aPushConfigs {
    if (!this.call.push)
      throw new PushNotificationNotSupportedError(
        'Push notifications are off on this gateway (no A2A push key): stream the task, or resubscribe to it',
      );
    return new A2aPushConfigs(this.call, this.call.push);
  }

  /**
   * `begin`, with the push config the message brings (`configuration.taskPushNotificationConfig`,
   * 0.3's `pushNotificationConfig`) checked before anything starts and set on the task after.
   */
  private async beginWithPush(params: SendMessageRequest, context: ServerCallContext | undefined): Promise<Begun> {
    const given = params.configuration?.taskPushNotificationConfig;
    let prepared: PreparedPushConfig | null = null;
    if (given) prepared = await this.pushConfigs().prepare(given);
    const begun = await this.begin(params);
    if (prepared) await this.pushConfigs().attach(begun.target, begun.snapshot, prepared, wireVersionOf(context));
    return begun;
  }

  private streamOptions(begun: Begun) {
    return { signal: this.call.signal, ...(begun.decided ? { decided: begun.decided } : {}) };
  }

  /** Starts what the message asks: an answer on its task, a turn of its context's thread, or a new run. */
  private async begin(params: SendMessageRequest): Promise<Begun> {
    const message = params.message;
    if (!message) throw new RequestMalformedError('message: required');
    this.checkSkill(message);
    if (message.taskId) return this.continueTask(message);
    const text = messageText(message);
    if (!text.trim()) throw new RequestMalformedError('message.parts: a new task needs a text part with the task');
    if (message.contextId) return this.sendToThread(message.contextId, text, message.messageId);
    requireScope(this.call.principal, 'start');
    const run = await this.call.agents.startRun({ agent: this.call.agent, task: text });
    const target = runTarget(run.workflowId);
    return { target, snapshot: { fold: new TaskFold(target.taskId, target.contextId, { kind: 'run' }), afterSeq: 0 } };
  }

  /** A message to thread `threadId` (created by it, for this agent, when it does not exist): the turn that answers it. */
  private async sendToThread(threadId: string, text: string, messageId: string): Promise<Begun> {
    requireScope(this.call.principal, 'send');
    const description = await this.call.agents
      .getRun(threadId)
      .workflow.describe()
      .catch((error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return null;
        throw error;
      });
    if (
      description &&
      (description.type !== WireName.agentThreadWorkflow || description.typedSearchAttributes.get(AgentNameAttribute) !== this.call.agent)
    )
      throw new RequestMalformedError(
        `message.contextId: '${threadId}' is ${description.type === WireName.agentThreadWorkflow ? 'a thread of another agent' : "a run's task, not a thread"}; to answer that task send its taskId, to talk on choose a new contextId`,
      );
    const turn = await this.call.agents.thread(threadId, { agent: this.call.agent }).send(text, messageId ? { messageId } : {});
    const { receipt } = turn;
    const target = turnTarget(threadId, receipt.turn);
    const inside = receipt.disposition === 'started' || receipt.disposition === 'injected';
    const fold = new TaskFold(target.taskId, target.contextId, { kind: 'turn', turn: receipt.turn, inside });
    return { target, snapshot: { fold, afterSeq: receipt.eventCursor } };
  }

  /**
   * A message on an existing task: a decision when it waits for an approval (as the caller's
   * principal, under the access file's approver rules), else added to the running work.
   */
  private async continueTask(message: Message): Promise<Begun> {
    const { target, closed } = await locateTask(this.call, message.taskId);
    if (message.contextId && message.contextId !== target.contextId)
      throw new RequestMalformedError(
        `message.contextId: task '${target.taskId}' belongs to context '${target.contextId}', not '${message.contextId}'`,
      );
    const snapshot = await readTask(this.call, target, closed);
    const fold = snapshot.fold;
    if (isFinalState(fold.taskState)) throw new UnsupportedOperationError(`Task '${target.taskId}' has ended: send a new message (without taskId)`);
    if (!fold.waitsForInput) {
      requireScope(this.call.principal, 'send');
      const text = messageText(message);
      if (!text.trim()) throw new RequestMalformedError('message.parts: no text to add to the running task');
      if (target.turn === null) await this.call.agents.getRun(target.workflowId).inject(text);
      else
        await this.call.agents
          .thread(target.workflowId)
          .send(text, { policy: 'inject', ...(message.messageId ? { messageId: message.messageId } : {}) });
      return { target, snapshot };
    }
    requireScope(this.call.principal, 'approve');
    const answer = approvalAnswerOf(message);
    const pending = fold.pendingApprovals.map((request) => request.approvalId);
    if (answer.approvalId !== null && !pending.includes(answer.approvalId))
      throw new RequestMalformedError(
        `approvalId: '${answer.approvalId}' is not pending on task '${target.taskId}' (pending: ${pending.join(', ')})`,
      );
    const decided = answer.approvalId !== null ? [answer.approvalId] : pending;
    for (const approvalId of decided) {
      const result = await decideApproval(this.call.agents, this.call.access.approvers, {
        workflowId: target.workflowId,
        approvalId,
        decision: answer.decision,
        reason: answer.reason,
        identity: this.call.principal.name,
        via: 'a2a',
        ...(this.call.decisionKey ? { signingKey: this.call.decisionKey } : {}),
      });
      // Decided first by someone else (another door, the timeout): the stream shows how it went.
      if (!result.ok && result.httpStatus !== 409) throw decisionRefused(result.httpStatus, result.message, result.code);
    }
    return { target, snapshot, decided: new Set(decided) };
  }

  /** A message's `metadata.skill` (or `skillId`), when given, must be one of the card's skills. */
  private checkSkill(message: Message): void {
    const metadata = message.metadata as { skill?: unknown; skillId?: unknown } | undefined;
    const skill = metadata?.skill ?? metadata?.skillId;
    if (skill === undefined) return;
    const known = skillIds(this.call.offer);
    if (typeof skill !== 'string' || !known.includes(skill))
      throw new RequestMalformedError(
        `message.metadata.skill: agent '${this.call.agent}' has no skill ${JSON.stringify(skill)} (skills: ${known.join(', ')})`,
      );
  }
}

/** The A2A version a request came in (the route sets it from the A2A-Version header; 0.3 without one). */
function wireVersionOf(context: ServerCallContext | undefined): PushWireVersion {
  return context?.requestedVersion === '1.0' ? '1.0' : '0.3';
}
