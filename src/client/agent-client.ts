import { randomUUID } from 'node:crypto';
import { parseRunPriority } from '../config/run-priority-schema';
import { parseRunConcurrency } from '../config/concurrency-schema';
import { Client } from '@temporalio/client';
import { dataConverterFromEnvironment } from '../codec/encryption-codec';
import { assertRunTask } from '../protocol/run-task';
import type { AgentRunInput, ApprovalRequest } from '../protocol/run-types';
import { AgentForkOfAttribute, AgentStatusAttribute } from '../protocol/search-attributes';
import { planFork, type ForkOptions } from './fork';
import { describeForkEdit } from '../protocol/fork-edit-description';
import { assertWorkersHaveTools, WorkerToolsCheck } from './check-worker-tools';
import { DEFAULT_TASK_QUEUE } from '../protocol/wire-names';
import { connectClient } from '../connection/connect-client';
import { resolveTemporalTarget, webUiRunUrl, type TemporalTarget } from '../connection/temporal-target';
import { agentFields, chooseAgent } from './agent-choice';
import { WorkerAgentsCheck } from './worker-agents-check';
import { RunHandle } from './run-handle';
import { deleteResourceThreads } from './thread-deletion';
import type { ArtifactStore } from '../artifacts/artifact-store';
import type { ResourceThreadsDeleted } from '../memory/forget-resource';
import { assertInputFits } from './outgoing-checks';
import { startAgentWorkflow } from './start-agent-workflow';
import { ThreadHandle, type ThreadOptions } from './thread-handle';
import { listThreads, type ThreadFilter, type ThreadSummary } from './thread-list';
import { queryQueueInterceptor } from '../connection/query-queue-interceptor';
import { tracingClientInterceptor } from './tracing-client-interceptor';

// RunHandle lives in run-handle.ts; it is exported here too, where users have always found it.
export { RunHandle } from './run-handle';
export { transientServerError } from './decision-delivery';
export type { DecideOptions, DecisionReceipt, DecisionRetries } from './decision-delivery';
export type { ForkOptions } from './fork';
export type { AgentClientOptions, StartRunOptions } from './agent-client-options';
import type { AgentClientOptions, StartRunOptions } from './agent-client-options';
import { listWorkerAgents } from './worker-agents';
import { recordedAgentDefinition, type RecordedAgentDefinition } from './agent-versions';
import { AgentSchedules } from './schedules/agent-schedules';
import type { AgentOffer } from '../protocol/agent-offers';

/**
 * The library client: starts agent runs and reads their status, events and results.
 * @example
 * const agents = await AgentClient.connect();
 * const run = await agents.startRun({ config: { name: 'helper', model: 'scripted:demo.yaml' }, task: 'Hi' });
 * console.log((await run.result()).output);
 */
export class AgentClient {
  readonly namespace: string;
  readonly taskQueue: string;
  readonly uiUrl: string | null;
  /** Whether starts ask for eager workflow start (`AgentClientOptions.eagerStart`). */
  readonly eagerStart: boolean;
  private readonly checkWorkerTools: boolean;
  private readonly workerTools: WorkerToolsCheck;
  private readonly workerAgents: WorkerAgentsCheck;
  private readonly artifacts: ArtifactStore | undefined;

  constructor(
    readonly temporal: Client,
    options: AgentClientOptions = {},
  ) {
    this.namespace = options.namespace ?? temporal.options.namespace ?? 'default';
    this.taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
    this.uiUrl = options.uiUrl ?? null;
    this.eagerStart = options.eagerStart ?? false;
    this.checkWorkerTools = options.checkWorkerTools ?? true;
    this.workerTools = new WorkerToolsCheck(temporal, this.namespace);
    this.workerAgents = new WorkerAgentsCheck(temporal, this.namespace);
    this.artifacts = options.artifacts;
  }

  /**
   * Connects to `TEMPORAL_ADDRESS` (and friends) or the local dev server, encrypting payloads
   * when `AGENT_PAYLOAD_KEYS` is set (docs/deployment.md). Close it with `close()`.
   * @throws TemporalUnreachableError (code `TemporalUnreachable`) naming the address and the
   * variable it came from; a closed port or an unknown host fails at once.
   */
  static async connect(target: TemporalTarget = resolveTemporalTarget(), options: AgentClientOptions = {}): Promise<AgentClient> {
    const dataConverter = dataConverterFromEnvironment();
    const connection = await connectClient(target);
    // Queries to one run go out one at a time (queryQueueInterceptor says why); tracing when asked for.
    const workflow = [queryQueueInterceptor(), ...(options.tracing ? [await tracingClientInterceptor()] : [])];
    const client = new Client({
      connection,
      namespace: target.namespace,
      ...(dataConverter ? { dataConverter } : {}),
      interceptors: { workflow },
    });
    return new AgentClient(client, { uiUrl: target.uiUrl, ...options, namespace: target.namespace });
  }

  /**
   * Validates the config (and those of its handoff agents) and starts a run as an `agentRun`
   * workflow on the client's task queue. Returns once the server has accepted the start, not when
   * the run ends: `await handle.result()` for that.
   * @throws AgentConfigError naming the invalid fields (of the config, `task: must not be empty`,
   * or an agent with `memory: true` and no `resourceId`), or the tools the task queue's workers
   * lack (see `checkWorkerTools`); nothing is started then.
   * @throws SearchAttributesMissingError (code `SearchAttributesMissing`) when the namespace lacks
   * the runtime's search attributes (`npx durable-agents setup`).
   * @throws WorkflowExecutionAlreadyStartedError (from `@temporalio/client`) when a run with this
   * `workflowId` is already running.
   * @throws PayloadTooLargeError (code `PayloadTooLarge`, naming the largest field) when the run's
   * input (config, task, messages, agents) is over 1 MB of JSON; nothing is sent then.
   */
  async startRun(options: StartRunOptions): Promise<RunHandle> {
    const choice = chooseAgent(options, 'run');
    assertRunTask(options.task);
    const priority = options.priority ? parseRunPriority(options.priority) : undefined;
    const concurrency = options.concurrency ? parseRunConcurrency(options.concurrency) : undefined;
    const input: AgentRunInput = {
      ...agentFields(choice),
      task: options.task,
      ...(options.resourceId !== undefined ? { resourceId: options.resourceId } : {}),
      messages: options.messages,
      timeouts: options.timeouts,
      ...(options.historyEventLimit !== undefined ? { historyEventLimit: options.historyEventLimit } : {}),
      ...(options.historySizeLimitBytes !== undefined ? { historySizeLimitBytes: options.historySizeLimitBytes } : {}),
      ...(concurrency ? { concurrency } : {}),
    };
    assertInputFits('a run', input);
    if (choice.kind === 'named') await this.workerAgents.assertOffered(this.taskQueue, choice.reference);
    else if (options.checkWorkerTools ?? this.checkWorkerTools)
      await this.workerTools.refuseMissingTools(this.taskQueue, [choice.config, ...Object.values(choice.agents)]);
    const name = choice.kind === 'named' ? choice.reference.name : choice.config.name;
    const workflowId = options.workflowId ?? `${name}-${randomUUID().slice(0, 8)}`;
    return startAgentWorkflow(this, input, {
      workflowId,
      summary: `${name}: ${oneLine(options.task, 100)}`,
      ...(priority ? { priority } : {}),
    });
  }

  /**
   * Forks a run: starts a new run whose conversation is `workflowId`'s up to the end of step
   * `fromStep` (as `durable-agents history` numbers steps), read from the origin's history,
   * closed or running; it continues from there under `config` (default: the origin agent's), with
   * `model` and an extra user message `task` if given. Steps up to `fromStep` are not taken again:
   * their tool calls do not run. The fork carries the origin's workflow id in the `AgentForkOf`
   * search attribute and the Web UI's summary and details, and its first event is `run-forked`.
   * `edits` change the conversation it starts from (a tool result, a message); `ForkEditInvalid` names a bad one.
   * @throws AgentRuntimeError with code `RunNotFound` (unknown run) or `ForkRefused` (a step that
   * does not exist or has not finished, or a conversation the origin no longer holds because it
   * compacted it after that step), AgentConfigError for an invalid config or one naming tools the
   * task queue's workers lack (they are asked first); nothing starts then.
   * @example
   * const agents = await AgentClient.connect();
   * const fork = await agents.fork('support-1a2b3c4d', { fromStep: 2, model: 'openai:gpt-4o' });
   * console.log((await fork.result()).output);
   */
  async fork(workflowId: string, options: ForkOptions): Promise<RunHandle> {
    const { input, originAgent } = await planFork(this.temporal, workflowId, options);
    const { config, fork } = input;
    await assertWorkersHaveTools(this.temporal, this.taskQueue, [config, ...Object.values(input.agents ?? {})]);
    const origin = `${fork.workflowId} after step ${fork.step}`;
    const link = this.runUrl(fork.workflowId, fork.runId);
    const edits = fork.edits ?? [];
    const details = [
      `Fork of run **${fork.workflowId}** (execution ${fork.runId}, agent ${originAgent}) after step ${fork.step}.`,
      `Continues as agent ${config.name} on ${config.model}.`,
      ...(edits.length > 0 ? [`Edited: ${edits.map(describeForkEdit).join('; ')}.`] : []),
      ...(fork.message ? [`Added message: ${fork.message}`] : []),
      ...(link ? [`Origin: ${link}`] : []),
    ].join('\n\n');
    return startAgentWorkflow(this, input, {
      workflowId: options.workflowId ?? `${config.name}-fork-${randomUUID().slice(0, 8)}`,
      summary: `${edits.length > 0 ? `edited fork (${edits.length} ${edits.length === 1 ? 'edit' : 'edits'})` : 'fork'} of ${origin}: ${config.name} on ${config.model}`,
      details,
      attributes: [{ key: AgentForkOfAttribute, value: fork.workflowId }],
      // Lists of runs show the memo: an edited fork is told apart without reading its history.
      ...(edits.length > 0 ? { memo: { forkEdits: edits.length } } : {}),
    });
  }

  /**
   * A handle on the thread `threadId`: a durable multi-turn conversation (docs/threads.md). With a
   * `config`, its first `send` creates it; without one, the thread must exist.
   * @example
   * const thread = agents.thread('support:customer-42', { config: { name: 'support', model: 'openai:gpt-4o-mini' } });
   * const turn = await thread.send('Where is my order?');
   * console.log((await turn.result()).output);
   */
  thread(threadId: string, options: ThreadOptions = {}): ThreadHandle {
    const target = {
      temporal: this.temporal,
      namespace: this.namespace,
      taskQueue: this.taskQueue,
      webUiUrl: (workflowId: string) => this.runUrl(workflowId),
      workerAgents: this.workerAgents,
      ...(this.artifacts ? { artifacts: this.artifacts } : {}),
    };
    return new ThreadHandle(target, threadId, options);
  }

  /** Threads by agent, resource and status, newest first (a visibility query). */
  listThreads(filter: ThreadFilter = {}): Promise<ThreadSummary[]> {
    return listThreads(this.temporal, filter);
  }

  /**
   * Deletes every thread of `resourceId` (open and closed, found by `AgentResource`) as
   * `ThreadHandle.delete` does: the `threads` store of `forgetResource`. Visibility is eventually
   * consistent: a thread created a moment ago may be missed (run it again). Threads in `skip` are
   * left alone (`forgetResource` skips the ones an earlier round deleted).
   * @example
   * const report = await forgetResource('user:42', { memory, threads: agents });
   */
  deleteThreadsOf(resourceId: string, options: { skip?: ReadonlySet<string> } = {}): Promise<ResourceThreadsDeleted> {
    return deleteResourceThreads(
      { temporal: this.temporal, namespace: this.namespace, ...(this.artifacts ? { artifacts: this.artifacts } : {}) },
      resourceId,
      options.skip,
    );
  }

  /** A handle on an existing run (latest execution unless `runId` is given). */
  getRun(workflowId: string, runId?: string): RunHandle {
    return new RunHandle(this.temporal, this.temporal.workflow.getHandle(workflowId, runId), this.runUrl(workflowId, runId));
  }

  /** Link to a run in the Temporal Web UI, or null when the client has no `uiUrl`. */
  runUrl(workflowId: string, runId?: string): string | null {
    return this.uiUrl ? webUiRunUrl(this.uiUrl, this.namespace, workflowId, runId) : null;
  }

  /**
   * Every pending approval across running runs: a visibility query for runs whose AgentStatus is
   * awaiting_approval, then each run's status query. Runs whose worker does not answer within
   * `waitMs` are reported with `unreachable: true`.
   */
  async listPendingApprovals(options: { waitMs?: number } = {}): Promise<PendingApprovals[]> {
    const query = `${AgentStatusAttribute.name} = 'awaiting_approval' AND ExecutionStatus = 'Running'`;
    const found: PendingApprovals[] = [];
    for await (const execution of this.temporal.workflow.list({ query })) {
      const run = this.getRun(execution.workflowId, execution.runId);
      try {
        const status = await this.temporal.withDeadline(Date.now() + (options.waitMs ?? 5_000), () => run.status());
        found.push({ workflowId: execution.workflowId, runId: execution.runId, approvals: status.pendingApprovals, unreachable: false });
      } catch {
        found.push({ workflowId: execution.workflowId, runId: execution.runId, approvals: [], unreachable: true });
      }
    }
    return found;
  }

  /**
   * A version of a named agent (`support@3f2a9c0d1b7e`, or `support@release-42` / `support` for
   * what the workers offer now) as the runs and threads that answered with it recorded it: its
   * config and handoff agents, for `evaluateRuns`, `fork` or an inline run. A version no worker
   * offers any more is found the same way, so two versions compare on the same recorded runs.
   * @throws AgentNotFoundError when no execution recorded that version; AgentConfigError for a malformed name.
   * @example
   * const v1 = await agents.agentDefinition('support@3f2a9c0d1b7e');
   * const report = await evaluateRuns(agents, { query: "AgentName = 'support'", config: v1.config, agents: v1.agents });
   */
  async agentDefinition(text: string): Promise<RecordedAgentDefinition> {
    const offers = await this.listAgents().catch(() => []);
    return recordedAgentDefinition(this.temporal, text, offers);
  }

  /**
   * The named, versioned agents the workers of the task queue offer (docs/agents.md), asked of a
   * worker through a short probe workflow.
   * @throws AgentRuntimeError (`WorkersUnavailable`) when no worker answers within 30 s.
   * @example
   * for (const agent of await agents.listAgents()) console.log(`${agent.name}@${agent.version}`, agent.label ?? '');
   */
  listAgents(options: { taskQueue?: string } = {}): Promise<AgentOffer[]> {
    return listWorkerAgents(this.temporal, options.taskQueue ?? this.taskQueue);
  }

  /**
   * Agents on a schedule (docs/schedules.md): Temporal Schedules that start agent runs on this
   * client's task queue, or post into a thread, on a cron expression or an interval.
   * @example
   * await agents.schedules.create('hourly-check', { spec: { every: '1h' }, action: { kind: 'run', agent: 'checker', task: 'Check the queue.' } });
   */
  get schedules(): AgentSchedules {
    return new AgentSchedules(this.temporal, this.namespace, this.taskQueue);
  }

  /** Closes the client's connection (one made by `connect`, or the `Client` you passed in). */
  async close(): Promise<void> {
    await this.temporal.connection.close();
  }
}

/** One run's pending approvals, as `AgentClient.listPendingApprovals` reports them. */
export interface PendingApprovals {
  workflowId: string;
  runId: string;
  /** Gated tool calls waiting for a decision (empty when `unreachable`). */
  approvals: ApprovalRequest[];
  /** No worker answered the status query in time (the approvals are then unknown). */
  unreachable: boolean;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
