// The options of an AgentClient and of the runs it starts (startRun); agent-client.ts re-exports them.
import type { AgentConfig, AgentConfigInput } from '../config/agent-config';
import type { RunConcurrency } from '../config/concurrency-schema';
import type { RunPriority } from '../config/run-priority-schema';
import type { ArtifactStore } from '../artifacts/artifact-store';
import type { Message } from '../protocol/messages';
import type { RunTimeouts } from '../protocol/run-types';
import type { AgentOverrides } from '../protocol/agent-reference';
import type { AgentName } from './agent-choice';

/** What `AgentClient.startRun` starts: the agent, its task, and optional run settings. */
export interface StartRunOptions {
  /** A config object (validated here, before anything starts) or one already parsed. Give this or `agent`. */
  config?: AgentConfigInput | AgentConfig;
  /**
   * An agent the task queue's workers define, by name (`support`, `support@3f2a9c0d1b7e`,
   * `support@release-42`, or an `AgentReference`): the workers resolve it when the run starts and
   * record the definition in its history (docs/agents.md). Give this or `config`.
   */
  agent?: AgentName;
  /** With `agent`: fields the definition lets callers override for this run (its `overridable`), e.g. `{ model: 'openai:gpt-4o' }`. */
  overrides?: AgentOverrides;
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
  /** Configs of other agents by name: every agent in an inline config's `handoffs` (and in theirs) must be here. */
  agents?: Record<string, AgentConfigInput | AgentConfig>;
  /**
   * Who the run is for (a user, a team: `user:42`): agents with `memory: true` remember and
   * recall in this resource's memory, shared by all of its runs. Required when an agent of the
   * run has memory; every tool sees it as `ToolContext.resourceId`.
   */
  resourceId?: string;
  /** Ask the workers whether they have the config's tools first (default: the client's `checkWorkerTools`). */
  checkWorkerTools?: boolean;
  /** The run's priority and tenant (`fairnessKey`), for Temporal's task queues and provider limits (docs/provider-limits.md). */
  priority?: RunPriority;
  /**
   * A concurrency cap by key (a tenant, a user): at most `limit` runs started with this `key` run
   * at once on the task queue; this one waits, queued durably, for a slot (status phase
   * `concurrency_slot`) and frees it when it ends (docs/provider-limits.md, "Concurrency caps").
   */
  concurrency?: RunConcurrency;
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
   * (saves that task's dispatch: 31 → 25 ms from start to the first task done on the dev server;
   * a whole run's time is within the noise, docs/performance.md). Needs the client and the worker
   * to share one `NativeConnection` (the SDK refuses the start otherwise) and the worker to poll
   * this task queue; when it has no free slot, the server starts the run the usual way.
   */
  eagerStart?: boolean;
  /**
   * Before a run starts, ask the task queue's workers which tools they have and refuse a config
   * naming one they lack (AgentConfigError), instead of the run finding out at the tool's first
   * call. Costs one short workflow per task queue a minute (the answer is reused); never holds a
   * run back when no worker polls the queue or none answers within 10 s (the run starts and waits
   * durably). Default: true.
   */
  checkWorkerTools?: boolean;
  /**
   * The workers' artifact store (the same folder or bucket), for what only it holds: a continued
   * thread's earlier messages (`ThreadHandle.messages`) and a thread's stored data to delete
   * (`ThreadHandle.delete`, `deleteThreadsOf`). Default: none (those calls say so).
   */
  artifacts?: ArtifactStore;
  /**
   * `connect` only: carry the caller's active OpenTelemetry context (W3C `traceparent`) into the
   * runs it starts, with Temporal's client interceptor, so a run's spans join the caller's trace
   * (docs/observability.md). Spans go through the app's own tracer provider. Default: false, and
   * nothing of OpenTelemetry is loaded. With a `Client` of your own, add
   * `OpenTelemetryWorkflowClientInterceptor` from `@temporalio/interceptors-opentelemetry` to it.
   */
  tracing?: boolean;
}
