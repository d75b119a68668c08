// What crosses processes for A2A push notifications: the per-task push workflow's input, its configs (secrets sealed), updates and query.
import { defineQuery, defineUpdate } from '@temporalio/workflow';

/** Wire names of the push workflow (one per A2A task with push configs) and its messages. */
export const A2aPushWireName = {
  workflow: 'a2aPushDelivery',
  setConfigUpdate: 'a2aPushSetConfig',
  deleteConfigUpdate: 'a2aPushDeleteConfig',
  configsQuery: 'a2aPushConfigs',
} as const;

/** Bounds a push config is held to, by the gateway first and by the workflow's validators again. */
export const A2A_PUSH_LIMITS = {
  /** Configs one task holds at most. */
  maxConfigs: 10,
  /** A config id's characters at most. */
  maxIdLength: 128,
  /** A webhook URL's characters at most. */
  maxUrlLength: 2_048,
  /** A token's characters at most. */
  maxTokenLength: 1_024,
  /** An authentication's scheme plus credentials, characters at most. */
  maxCredentialsLength: 4_096,
  /** One sealed config as JSON, bytes at most (what the workflow stores). */
  maxRecordBytes: 8_192,
} as const;

/** How long a push workflow follows its task at most by default (then it ends, whatever the task does): 7 days. */
export const DEFAULT_PUSH_FOLLOW_LIMIT_MS = 7 * 24 * 3_600_000;

/** The A2A task a push workflow follows: a run (`turn` null) or one turn of a thread. */
export interface A2aPushTask {
  taskId: string;
  /** The task's context id (a run's own id, a turn's thread id). */
  contextId: string;
  /** The run's or thread's workflow id. */
  workflowId: string;
  turn: number | null;
  /** The event the task's log starts after (0 for a run; a turn's start in its thread's log). */
  startSeq: number;
}

/** The push workflow's input. */
export interface A2aPushInput {
  task: A2aPushTask;
  /** How long it follows the task at most (default `DEFAULT_PUSH_FOLLOW_LIMIT_MS`). */
  followLimitMs?: number;
}

/**
 * One push config as the workflow holds it: where to post, in which wire version's shape, and the
 * caller's token and credentials sealed (AES-256-GCM with the deployment's push key): never in
 * plaintext in a workflow's input, history or query.
 */
export interface SealedPushConfig {
  id: string;
  url: string;
  /** The A2A version the config was set over: notifications are posted in that version's shape. */
  wireVersion: '1.0' | '0.3';
  /** `{ token, authentication }` sealed (`a2a-push-secrets.ts`), or null when the caller gave neither. */
  sealed: string | null;
  /** The task's log was read up to this event when the config was set: it gets the task's state as of then, and every change after. */
  setAfterSeq: number;
}

/** What the push workflow's query answers: its configs, and whether delivery has ended. */
export interface A2aPushState {
  configs: SealedPushConfig[];
  ended: boolean;
}

/** The delivery activity's input. */
export interface DeliverA2aPushInput {
  task: A2aPushTask;
  /** The push workflow to read the current configs from. */
  pushWorkflowId: string;
}

/** How delivery ended. */
export interface A2aPushOutcome {
  /** The task's last state (`TASK_STATE_COMPLETED`, ...), or null when the follow limit came first. */
  finalState: string | null;
  /** Notifications posted and answered 2xx. */
  delivered: number;
  /** Notifications given up after their tries. */
  failed: number;
}

/** The push workflow of task `taskId`: one per task, whichever gateway set its configs. */
export function a2aPushWorkflowId(taskId: string): string {
  return `a2a-push:${taskId}`;
}

/** Adds or replaces (same id) a config; answers the configs after it. */
export const setPushConfigUpdate = defineUpdate<SealedPushConfig[], [SealedPushConfig]>(A2aPushWireName.setConfigUpdate);
/** Deletes a config by id (refused for an unknown id); answers the configs after it. */
export const deletePushConfigUpdate = defineUpdate<SealedPushConfig[], [string]>(A2aPushWireName.deleteConfigUpdate);
/** The configs and whether delivery ended. */
export const pushConfigsQuery = defineQuery<A2aPushState>(A2aPushWireName.configsQuery);

/** Failure types the push workflow's validators refuse with (the gateway answers them as A2A errors). */
export const A2aPushFailure = {
  /** No config of that id on the task. */
  configNotFound: 'A2aPushConfigNotFound',
  /** A config over the bounds, or one too many. */
  configRefused: 'A2aPushConfigRefused',
  /** Delivery has ended (the task ended and was delivered, or the follow limit passed). */
  ended: 'A2aPushEnded',
} as const;

/** Why `config` may not be stored next to `held` (the configs by id), or null when it may. Pure: the gateway and the workflow both apply it. */
export function pushConfigProblem(config: SealedPushConfig, held: ReadonlyMap<string, SealedPushConfig>): string | null {
  if (typeof config?.id !== 'string' || config.id === '' || config.id.length > A2A_PUSH_LIMITS.maxIdLength)
    return `id: 1 to ${A2A_PUSH_LIMITS.maxIdLength} characters`;
  if (typeof config.url !== 'string' || !/^https?:\/\//i.test(config.url) || config.url.length > A2A_PUSH_LIMITS.maxUrlLength)
    return `url: an http(s) URL of at most ${A2A_PUSH_LIMITS.maxUrlLength} characters`;
  if (config.wireVersion !== '1.0' && config.wireVersion !== '0.3') return "wireVersion: '1.0' or '0.3'";
  if (!Number.isInteger(config.setAfterSeq) || config.setAfterSeq < 0) return 'setAfterSeq: an event number';
  if (config.sealed !== null && typeof config.sealed !== 'string') return 'sealed: a sealed secret or null';
  const bytes = JSON.stringify(config).length;
  if (bytes > A2A_PUSH_LIMITS.maxRecordBytes) return `the config is ${bytes} bytes as JSON; at most ${A2A_PUSH_LIMITS.maxRecordBytes}`;
  if (!held.has(config.id) && held.size >= A2A_PUSH_LIMITS.maxConfigs)
    return `the task has ${held.size} push configs already; at most ${A2A_PUSH_LIMITS.maxConfigs} (delete one first)`;
  return null;
}
