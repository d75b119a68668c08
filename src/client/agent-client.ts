import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError, type WorkflowHandle } from '@temporalio/client';
import { parseAgentConfig, type AgentConfig, type AgentConfigInput } from '../shared/agent-config';
import type { Message } from '../shared/messages';
import type { RunEvent } from '../shared/run-events';
import type { LiveSnapshot, ModelTextSnapshot } from '../shared/live-snapshots';
import { liveSnapshots } from './live-snapshots';
import { dataConverterFromEnvironment } from '../codec/encryption-codec';
import { approvalSignal, decideApprovalUpdate, eventsQuery, injectMessageSignal, injectMessageUpdate, statusQuery } from '../shared/run-messages';
import { AgentRuntimeError, ApprovalRefusedError, EmptyMessageError, ErrorCode, InvalidMessageError, SearchAttributesMissingError } from '../shared/errors';
import { resolveHandoffAgents } from '../shared/handoff-agents';
import type { AgentRunInput, AgentRunResult, ApprovalDecision, ApprovalOutcome, ApprovalRequest, RunStatus, RunTimeouts } from '../shared/run-types';
import { AgentNameAttribute, AgentSkillSourcesAttribute, AgentStatusAttribute } from '../shared/search-attributes';
import { withSkillSourceKeys } from '../skills/skill-source';
import { DEFAULT_TASK_QUEUE, WireName } from '../shared/wire-names';
import { resolveTemporalTarget, webUiRunUrl, type TemporalTarget } from '../connection/temporal-target';
import type { agentRun } from '../workflows/agent-run';

/** What `AgentClient.startRun` starts: the agent, its task, and optional run settings. */
export interface StartRunOptions {
  /** A config object (validated here, before anything starts) or one already parsed. */
  config: AgentConfigInput | AgentConfig;
  /** The user's request: the run's first message. Must not be blank. */
  task: string;
  /**
   * Default: `<agent name>-<random id>`. Give your own (an order or ticket id, say) to make the
   * start idempotent: Temporal refuses a second run with the id of a running one.
   */
  workflowId?: string;
  /** Prior conversation the run continues from. */
  messages?: Message[];
  /** Activity timeouts to override; the rest keep their defaults. */
  timeouts?: Partial<RunTimeouts>;
  /** Continue as new at this many history events (default: when Temporal suggests it). */
  historyEventLimit?: number;
  /** Continue as new once the history has this many bytes (default: when Temporal suggests it). docs/long-runs.md */
  historySizeLimitBytes?: number;
  /** Configs of other agents by name: every agent in `handoffs` (and in theirs) must be here. */
  agents?: Record<string, AgentConfigInput | AgentConfig>;
}

/** Settings of an `AgentClient`, for `AgentClient.connect` or the constructor. */
export interface AgentClientOptions {
  /** Default: the client's namespace (`TEMPORAL_NAMESPACE` with `connect`), else `default`. */
  namespace?: string;
  /** The task queue runs start on; an agent worker must poll it. Default: `agent-runs`. */
  taskQueue?: string;
  /** Base URL of the Temporal Web UI, for run links. */
  uiUrl?: string | null;
  /**
   * Ask the server to hand the first workflow task straight back to a worker in this process
   * (saves a round trip). Needs the client and the worker to share one NativeConnection.
   */
  eagerStart?: boolean;
}

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
  private readonly eagerStart: boolean;

  constructor(
    readonly temporal: Client,
    options: AgentClientOptions = {},
  ) {
    this.namespace = options.namespace ?? temporal.options.namespace ?? 'default';
    this.taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
    this.uiUrl = options.uiUrl ?? null;
    this.eagerStart = options.eagerStart ?? false;
  }

  /**
   * Connects to `TEMPORAL_ADDRESS` (and friends) or the local dev server, encrypting payloads
   * when `AGENT_PAYLOAD_KEYS` is set (docs/deployment.md). Close it with `close()`.
   */
  static async connect(target: TemporalTarget = resolveTemporalTarget(), options: AgentClientOptions = {}): Promise<AgentClient> {
    const dataConverter = dataConverterFromEnvironment();
    const connection = await Connection.connect(target.connectionOptions);
    const client = new Client({ connection, namespace: target.namespace, ...(dataConverter ? { dataConverter } : {}) });
    return new AgentClient(client, { uiUrl: target.uiUrl, ...options, namespace: target.namespace });
  }

  /**
   * Validates the config (and those of its handoff agents) and starts a run as an `agentRun`
   * workflow on the client's task queue. Returns once the server has accepted the start, not when
   * the run ends: `await handle.result()` for that.
   * @throws AgentConfigError naming the invalid fields; nothing is started then.
   * @throws SearchAttributesMissingError (code `SearchAttributesMissing`) when the namespace lacks
   * the runtime's search attributes (`npx durable-agents setup`).
   * @throws WorkflowExecutionAlreadyStartedError (from `@temporalio/client`) when a run with this
   * `workflowId` is already running.
   */
  async startRun(options: StartRunOptions): Promise<RunHandle> {
    // Skill sources are known by absolute folder paths (or URLs) in runs, signals and search attributes.
    const config = withSkillSourceKeys(parseAgentConfig(options.config));
    if (!options.task.trim()) throw new Error('task: must not be empty');
    const agents = resolveHandoffAgents(config, options.agents ?? {}, (agent) => withSkillSourceKeys(agent));
    const input: AgentRunInput = {
      config,
      task: options.task,
      ...(Object.keys(agents).length > 0 ? { agents } : {}),
      messages: options.messages,
      timeouts: options.timeouts,
      ...(options.historyEventLimit !== undefined ? { historyEventLimit: options.historyEventLimit } : {}),
      ...(options.historySizeLimitBytes !== undefined ? { historySizeLimitBytes: options.historySizeLimitBytes } : {}),
    };
    const workflowId = options.workflowId ?? `${config.name}-${randomUUID().slice(0, 8)}`;
    const handle = await this.temporal.workflow
      .start<typeof agentRun>(WireName.agentRunWorkflow, {
      workflowId,
      taskQueue: this.taskQueue,
      args: [input],
      staticSummary: `${config.name}: ${oneLine(options.task, 100)}`,
      typedSearchAttributes: [
        { key: AgentNameAttribute, value: config.name },
        { key: AgentStatusAttribute, value: 'running' },
        ...(config.skill_sources.length > 0 ? [{ key: AgentSkillSourcesAttribute, value: config.skill_sources }] : []),
      ],
      requestEagerStart: this.eagerStart,
      })
      .catch((error: unknown) => {
        // A namespace that never had `durable-agents setup` refuses the run's search attributes.
        const message = error instanceof Error ? error.message : String(error);
        if (/search attribute/i.test(message) && /AgentName|AgentStatus|AgentSkillSources/.test(message)) throw new SearchAttributesMissingError(this.namespace, message);
        throw error;
      });
    return new RunHandle(this.temporal, handle, this.runUrl(handle.workflowId, handle.firstExecutionRunId));
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

/** How a decision reached the run (and, when the server was restarting or busy, the retries on the way). */
export type DecisionReceipt = (
  | { delivery: 'update'; approvalId: string; outcome: ApprovalOutcome }
  /** No worker answered in time: the signal is in the run's history and applies when a worker runs it. */
  | { delivery: 'signal'; approvalId: string; outcome: null }
) & { retries?: DecisionRetries };

/** Transient server errors a decision was retried after (only present when there was one). */
export interface DecisionRetries {
  count: number;
  /** From the first try to the delivery. */
  elapsedMs: number;
  /** Why each retry happened, in order: `server busy`, `server unavailable`, `deadline exceeded`. */
  reasons: string[];
}

/** How `RunHandle.decide` (and `approve` / `reject`) delivers a decision. */
export interface DecideOptions {
  /** How long to wait for a worker to answer before sending a signal instead of an update. Default: 5 s. */
  waitMs?: number;
  /** How long to keep retrying transient server errors (restarts, "Workflow is busy"). Default: 60 s. */
  retryForMs?: number;
}

/** gRPC status codes (from @grpc/grpc-js, which is not a dependency of this package). */
const grpcStatus = { DEADLINE_EXCEEDED: 4, RESOURCE_EXHAUSTED: 8, ABORTED: 10, UNAVAILABLE: 14 } as const;

/**
 * Why an error is worth retrying (a restarting or overloaded server), or null when it is not: the
 * gRPC status codes UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED ("Workflow is busy") and
 * ABORTED, anywhere in the error's causes, and an update whose RPC timed out.
 */
export function transientServerError(error: unknown): string | null {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 6; current = current.cause, depth++) {
    if (current instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return 'deadline exceeded';
    const code = (current as { code?: unknown }).code;
    if (code === grpcStatus.RESOURCE_EXHAUSTED || /workflow is busy/i.test(current.message)) return 'server busy';
    if (code === grpcStatus.UNAVAILABLE) return 'server unavailable';
    if (code === grpcStatus.DEADLINE_EXCEEDED) return 'deadline exceeded';
    if (code === grpcStatus.ABORTED) return 'aborted by the server';
  }
  return null;
}

/**
 * A handle on one agent run: its result, status and events, and the ways to steer it (approve or
 * reject gated tool calls, inject messages). Get one from `AgentClient.startRun` or
 * `AgentClient.getRun`; it holds no state of its own, so any number of handles on one run agree.
 * @example
 * const run = agents.getRun('support-42');
 * for await (const event of run.events()) {
 *   if (event.type === 'approval-requested') {
 *     await run.approve(event.request.approvalId, { decidedBy: 'ops@example.com' });
 *   }
 * }
 * const { output, stopReason } = await run.result();
 */
export class RunHandle {
  constructor(
    private readonly temporal: Client,
    readonly workflow: WorkflowHandle,
    /** Link to the run in the Temporal Web UI, when the UI's address is known. */
    readonly webUiUrl: string | null,
  ) {}

  /** The run's workflow id (stable across continue-as-new). */
  get workflowId(): string {
    return this.workflow.workflowId;
  }

  /**
   * Waits for the run to end and returns its result, following continue-as-new. A run that stops
   * on `max_steps`, a budget or an invalid output still completes: check `stopReason`.
   * @throws WorkflowFailedError (from `@temporalio/client`) when the run failed, was cancelled or
   * terminated; its cause's `type` is the stable code (for example `ModelAuthFailed`).
   */
  result(): Promise<AgentRunResult> {
    return this.workflow.result() as Promise<AgentRunResult>;
  }

  /**
   * The run's current status (phase, step, usage, pending approvals, queued messages) through the
   * `status` query: adds nothing to the history, but needs a worker to answer.
   */
  status(): Promise<RunStatus> {
    return this.workflow.query(statusQuery);
  }

  /**
   * Sends a human decision on a gated tool call and reports what happened. When a worker answers
   * within `waitMs`, the decision goes as the `decideApproval` update, which confirms the outcome
   * or refuses an unknown, decided or expired id (ApprovalRefusedError). Otherwise it goes as the
   * `approval` signal, which is durably recorded and applied when a worker next runs the run.
   *
   * Transient server errors (a restarting server: unavailable, deadline exceeded, "Workflow is
   * busy") are retried with backoff for up to `retryForMs` (default 60 s); the receipt's `retries`
   * says how often and why. Retries never apply a decision twice: the update keeps one id across
   * them (the server answers a repeat with the first outcome), a repeated signal is ignored by the
   * run, and a refusal because an earlier try already landed is reported as that try's outcome.
   */
  async decide(decision: ApprovalDecision, options: DecideOptions = {}): Promise<DecisionReceipt> {
    const startedAt = Date.now();
    const giveUpAt = startedAt + (options.retryForMs ?? 60_000);
    const updateId = `decide-${decision.approvalId}-${randomUUID()}`;
    const reasons: string[] = [];
    const withRetries = (receipt: DecisionReceipt): DecisionReceipt =>
      reasons.length === 0 ? receipt : { ...receipt, retries: { count: reasons.length, elapsedMs: Date.now() - startedAt, reasons } };
    for (let delayMs = 250; ; delayMs = Math.min(delayMs * 2, 5_000)) {
      // One try may not outlive the retry budget (the connection's own gRPC retries included).
      const tryDeadline = Math.max(Date.now() + 1_000, Math.min(giveUpAt, Date.now() + 10_000));
      try {
        return withRetries(await this.deliverDecision(decision, updateId, options.waitMs ?? 5_000, tryDeadline));
      } catch (error) {
        if (error instanceof ApprovalRefusedError && reasons.length > 0) {
          const landed = await this.recordedDecision(decision).catch(() => null);
          if (landed) return withRetries({ delivery: 'update', approvalId: decision.approvalId, outcome: landed });
        }
        const reason = transientServerError(error);
        if (reason === null || Date.now() + delayMs >= giveUpAt) throw error;
        reasons.push(reason);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }

  private async deliverDecision(decision: ApprovalDecision, updateId: string, waitMs: number, deadline: number): Promise<DecisionReceipt> {
    const workerAnswers = await this.temporal
      .withDeadline(Math.min(deadline, Date.now() + waitMs), () => this.status())
      .then(() => true)
      .catch(() => false);
    if (!workerAnswers) {
      // No answer: no worker, or no server (the connection's own retries hide which until the
      // deadline). Only a server that answers gets the signal; otherwise this try failed.
      const serverAnswers = await this.temporal
        .withDeadline(Math.min(deadline, Date.now() + 1_500), () => this.temporal.workflowService.getSystemInfo({}))
        .then(() => true)
        .catch(() => false);
      if (!serverAnswers) throw Object.assign(new Error('the Temporal server did not answer'), { code: grpcStatus.UNAVAILABLE });
      await this.temporal.withDeadline(deadline, () => this.workflow.signal(approvalSignal, decision));
      return { delivery: 'signal', approvalId: decision.approvalId, outcome: null };
    }
    try {
      const result = await this.temporal.withDeadline(deadline, () => this.workflow.executeUpdate(decideApprovalUpdate, { args: [decision], updateId }));
      return { delivery: 'update', approvalId: result.approvalId, outcome: result.outcome };
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) throw refusalOf(error);
      throw error;
    }
  }

  /** The outcome the run recorded for this very decision (same id, decision and decider), if any. */
  private async recordedDecision(decision: ApprovalDecision): Promise<ApprovalOutcome | null> {
    const expected = decision.decision === 'approve' ? 'approved' : 'rejected';
    for (let cursor = 0; ; ) {
      const page = await this.workflow.query(eventsQuery, cursor, 500);
      const decided = page.events.find(
        (event) => event.type === 'approval-decided' && event.approvalId === decision.approvalId && event.outcome === expected && event.decidedBy === (decision.decidedBy ?? null),
      );
      if (decided) return expected;
      if (page.events.length === 0 || page.finished) return null;
      cursor = page.nextCursor;
    }
  }

  /** Approves a gated tool call: `decide` with `decision: 'approve'`. */
  approve(approvalId: string, options: { reason?: string; decidedBy?: string } & DecideOptions = {}): Promise<DecisionReceipt> {
    return this.decide({ approvalId, decision: 'approve', reason: options.reason, decidedBy: options.decidedBy }, options);
  }

  /** Rejects a gated tool call with a reason the model sees: `decide` with `decision: 'reject'`. */
  reject(approvalId: string, options: { reason: string; decidedBy?: string } & DecideOptions): Promise<DecisionReceipt> {
    return this.decide({ approvalId, decision: 'reject', reason: options.reason, decidedBy: options.decidedBy }, options);
  }

  /**
   * Pushes a user message into the running run; it joins the conversation before the next model
   * call (FIFO, after the previous step's tool results). Sent as a signal, so it is durable even
   * while no worker runs. @throws EmptyMessageError before sending anything when `text` is blank.
   */
  async inject(text: string): Promise<void> {
    if (!text.trim()) throw new EmptyMessageError();
    await this.workflow.signal(injectMessageSignal, { text });
  }

  /** Like `inject`, as an update: needs a running worker, returns the queue position. */
  async injectAndConfirm(text: string): Promise<{ queued: number }> {
    try {
      return await this.workflow.executeUpdate(injectMessageUpdate, { args: [{ text }] });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) throw refusalOf(error);
      throw error;
    }
  }

  /**
   * The answer text of the run's model steps while they stream (real providers stream by default),
   * read from heartbeat details: live, and never recorded in the history. Each item is the whole
   * text so far of one attempt of one step; a retried step starts again with a new attempt.
   */
  async *liveText(options: { pollMs?: number; signal?: AbortSignal } = {}): AsyncGenerator<ModelTextSnapshot> {
    for await (const snapshot of this.live(options)) if (snapshot.kind === 'model-text') yield snapshot;
  }

  /** Live answer text (as `liveText`) and the progress tool calls report while they run. */
  live(options: { pollMs?: number; signal?: AbortSignal } = {}): AsyncGenerator<LiveSnapshot> {
    return liveSnapshots(this.temporal, this.workflow, options);
  }

  /**
   * The run's events from `cursor` on, live: yields as they happen and ends when the run has
   * finished (or failed, or was cancelled or terminated) and every event was read. Polls the
   * `events` query (queries add nothing to history); while nothing happens it also checks, about
   * once a second, whether the execution is still open.
   */
  async *events(options: { cursor?: number; pollMs?: number; signal?: AbortSignal } = {}): AsyncGenerator<RunEvent> {
    let cursor = options.cursor ?? 0;
    const pollMs = options.pollMs ?? 200;
    let lastOpenCheck = Date.now();
    let closed = false;
    while (!options.signal?.aborted) {
      const page = await this.workflow.query(eventsQuery, cursor, 200);
      for (const event of page.events) yield event;
      cursor = page.nextCursor;
      if (page.finished || (closed && page.events.length === 0)) return;
      if (page.events.length > 0) continue;
      if (Date.now() - lastOpenCheck >= 1_000) {
        lastOpenCheck = Date.now();
        // One more query after the close is seen drains what the run logged before it ended.
        closed = (await this.workflow.describe()).status.name !== 'RUNNING';
        if (closed) continue;
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }
}

/** The typed error for an update the run's validator refused, by the refusal's stable type. */
function refusalOf(error: WorkflowUpdateFailedError): AgentRuntimeError {
  const type = (error.cause as { type?: string } | undefined)?.type;
  const reason = error.cause?.message ?? error.message;
  if (type === ErrorCode.emptyMessage) return new EmptyMessageError();
  if (type === ErrorCode.invalidMessage) return new InvalidMessageError(reason);
  return new ApprovalRefusedError(reason);
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
