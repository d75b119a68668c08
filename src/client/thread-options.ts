// The options of a thread handle: how a thread is created, how one message is sent, where it goes.
import type { Client } from '@temporalio/client';
import type { ArtifactStore } from '../artifacts/artifact-store';
import type { AgentConfig, AgentConfigInput } from '../config/agent-config';
import type { Message } from '../protocol/messages';
import type { RunTimeouts } from '../protocol/run-types';
import type { ThreadClosedPolicy, ThreadPolicy } from '../protocol/thread-types';
import type { AgentOverrides } from '../protocol/agent-reference';
import type { AgentName } from './agent-choice';
import type { WorkerAgentsCheck } from './worker-agents-check';

/** How a thread is created (by its first message) and what each message defaults to. */
export interface ThreadOptions {
  /** The agent of a new thread (validated before anything is sent). Not needed to write to a thread that exists. Give this or `agent`. */
  config?: AgentConfigInput | AgentConfig;
  /**
   * An agent the task queue's workers define, by name (`support`, `support@<version or label>`, or
   * an `AgentReference`): the thread answers each turn with the newest definition its workers offer,
   * recording `name@version` per turn, or stays on the version named here (docs/agents.md).
   */
  agent?: AgentName;
  /** With `agent`: fields the definition lets callers override, for the thread's whole life. */
  overrides?: AgentOverrides;
  /** With `agent` and no version: stay on the version resolved when the thread is created. Default: follow the newest. */
  pin?: boolean;
  /** Configs of the agents an inline config may hand off to, by name. */
  agents?: Record<string, AgentConfigInput | AgentConfig>;
  /** What messages sent while a turn runs do, unless they say otherwise. Default: `enqueue`. */
  policy?: ThreadPolicy;
  /**
   * What a message to the thread once it closed does: `refuse` (default: `ThreadClosed`) or
   * `reopen` (a new execution of the same id goes on with the conversation). Set at creation.
   */
  whenClosed?: ThreadClosedPolicy;
  /** Close the thread after this long without a message: a duration (`30d`, `12h`) or milliseconds. Default: never. */
  idleTimeout?: string | number;
  /** The resource (a user, a team) the thread belongs to: `AgentResource`, and the memory tools' scope. */
  resourceId?: string;
  /** Earlier conversation a new thread starts from. */
  messages?: Message[];
  timeouts?: Partial<RunTimeouts>;
  /** Continue as new at this many history events (default: 2,000, or earlier when Temporal suggests it). */
  historyEventLimit?: number;
  historySizeLimitBytes?: number;
}

/** How one message is sent. */
export interface SendOptions {
  /** Unique per thread; a resend with the same id is answered once. Default: a random id. */
  messageId?: string;
  /** This message's policy when a turn is running (default: the thread's). */
  policy?: ThreadPolicy;
}

/** Where a `ThreadHandle` sends: the client's connection, namespace and task queue. */
export interface ThreadTarget {
  temporal: Client;
  namespace: string;
  taskQueue: string;
  webUiUrl: (workflowId: string) => string | null;
  /** The workers' artifact store: a continued thread's earlier messages, and what `delete` deletes. */
  artifacts?: ArtifactStore;
  /** Asks the workers which agents they offer, before a named thread is created (the client's, shared by its handles). */
  workerAgents?: WorkerAgentsCheck;
}
