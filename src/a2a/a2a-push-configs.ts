// A task's push notification configs as the A2A methods see them, kept in the task's push workflow (one per task, shared by every gateway).
import { WithStartWorkflowOperation, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { ListTaskPushNotificationConfigsResponse, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { randomUUID } from 'node:crypto';
import { openPushSecrets, sealPushSecrets, type A2aPushKeys } from '../a2a-push/a2a-push-secrets';
import {
  A2A_PUSH_LIMITS,
  A2aPushFailure,
  A2aPushWireName,
  a2aPushWorkflowId,
  deletePushConfigUpdate,
  pushConfigsQuery,
  setPushConfigUpdate,
  type A2aPushInput,
  type A2aPushTask,
  type SealedPushConfig,
} from '../protocol/a2a-push';
import { checkPushUrl, type PushUrlRules } from './a2a-push-urls';
import { locateTask, readTask, type TaskReadContext, type TaskSnapshot, type TaskTarget } from './a2a-task-reads';

/** A2A push notifications of the gateway (docs/interop.md, "Push notifications"): on when it has keys. */
export interface A2aPushSettings extends PushUrlRules {
  /** The keys configs' secrets are sealed with: the same as the workers' (`readA2aPushKeys`). */
  keys: A2aPushKeys;
  /** How long a task's push workflow follows it at most (default 7 days). */
  followLimitMs?: number;
}

/** The A2A wire version a config was set over: its notifications are posted in that shape. */
export type PushWireVersion = '1.0' | '0.3';

/** A config checked, with its secrets sealed, ready to store. */
export interface PreparedPushConfig {
  /** The config as the caller gave it, its id filled in. */
  given: TaskPushNotificationConfig;
  sealed: string | null;
}

/** A task located for its configs: where it is, which queue its workers poll, how far its log was read. */
interface LocatedTask {
  target: TaskTarget;
  taskQueue: string;
  snapshot: TaskSnapshot;
}

/**
 * The four config methods and the config a message brings. Configs live in the task's push
 * workflow, never in a gateway: set through one gateway, they survive its restart and are
 * delivered once however many gateways run. Secrets are sealed here, before anything reaches Temporal.
 */
export class A2aPushConfigs {
  constructor(
    private readonly context: TaskReadContext,
    private readonly settings: A2aPushSettings,
  ) {}

  /** Sets a config on an existing task (`CreateTaskPushNotificationConfig`, `tasks/pushNotificationConfig/set`). */
  async create(config: TaskPushNotificationConfig, version: PushWireVersion): Promise<TaskPushNotificationConfig> {
    if (!config.taskId) throw new RequestMalformedError('taskId: required');
    const task = await this.locate(config.taskId);
    return this.store(task, await this.prepare(config), version);
  }

  /**
   * Checks a config and seals its secrets, touching nothing: a message that brings a config has it
   * checked before its task starts, so a bad config starts nothing.
   * @throws RequestMalformedError naming the field at fault.
   */
  async prepare(config: TaskPushNotificationConfig): Promise<PreparedPushConfig> {
    await checkPushUrl('url', config.url, this.settings);
    const id = config.id || randomUUID();
    if (id.length > A2A_PUSH_LIMITS.maxIdLength)
      throw new RequestMalformedError(`id: ${id.length} characters; at most ${A2A_PUSH_LIMITS.maxIdLength}`);
    const token = config.token ?? '';
    if (token.length > A2A_PUSH_LIMITS.maxTokenLength)
      throw new RequestMalformedError(`token: ${token.length} characters; at most ${A2A_PUSH_LIMITS.maxTokenLength}`);
    const authentication = config.authentication?.scheme
      ? { scheme: config.authentication.scheme, credentials: config.authentication.credentials ?? '' }
      : null;
    if (authentication && authentication.scheme.length + authentication.credentials.length > A2A_PUSH_LIMITS.maxCredentialsLength)
      throw new RequestMalformedError(`authentication: scheme and credentials over ${A2A_PUSH_LIMITS.maxCredentialsLength} characters`);
    if (authentication && !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(authentication.scheme))
      throw new RequestMalformedError('authentication.scheme: an HTTP authentication scheme name (Bearer, Basic, ...)');
    const sealed = token || authentication ? sealPushSecrets({ token, authentication }, this.settings.keys) : null;
    return { given: { ...config, id, token }, sealed };
  }

  /** Stores a prepared config on the task a message started or continued (its log read up to `snapshot`). */
  async attach(target: TaskTarget, snapshot: TaskSnapshot, prepared: PreparedPushConfig, version: PushWireVersion): Promise<void> {
    await this.store({ target, taskQueue: this.context.agents.taskQueue, snapshot }, prepared, version);
  }

  async get(taskId: string, id: string): Promise<TaskPushNotificationConfig> {
    await this.locate(taskId);
    const found = (await this.held(taskId)).find((config) => config.id === id);
    if (!found) throw new TaskNotFoundError(`No push notification config '${id}' on task '${taskId}'`);
    return this.shown(taskId, found);
  }

  async list(taskId: string): Promise<ListTaskPushNotificationConfigsResponse> {
    await this.locate(taskId);
    return { configs: (await this.held(taskId)).map((config) => this.shown(taskId, config)), nextPageToken: '' };
  }

  async delete(taskId: string, id: string): Promise<void> {
    await this.locate(taskId);
    try {
      await this.context.agents.temporal.workflow.getHandle(a2aPushWorkflowId(taskId)).executeUpdate(deletePushConfigUpdate, { args: [id] });
    } catch (error) {
      if (error instanceof WorkflowNotFoundError || isPushRefusal(error, A2aPushFailure.configNotFound) || isPushRefusal(error, A2aPushFailure.ended))
        throw new TaskNotFoundError(`No push notification config '${id}' on task '${taskId}'`);
      throw error;
    }
  }

  private async locate(taskId: string): Promise<LocatedTask> {
    const { target, closed, taskQueue } = await locateTask(this.context, taskId);
    return { target, taskQueue, snapshot: await readTask(this.context, target, closed) };
  }

  private async held(taskId: string): Promise<SealedPushConfig[]> {
    try {
      return (await this.context.agents.temporal.workflow.getHandle(a2aPushWorkflowId(taskId)).query(pushConfigsQuery)).configs;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return [];
      throw error;
    }
  }

  private async store(task: LocatedTask, prepared: PreparedPushConfig, version: PushWireVersion): Promise<TaskPushNotificationConfig> {
    const { given, sealed } = prepared;
    const id = given.id;
    const { target, snapshot } = task;
    const record: SealedPushConfig = { id, url: given.url, wireVersion: version, sealed, setAfterSeq: snapshot.afterSeq };
    const pushTask: A2aPushTask = {
      taskId: target.taskId,
      contextId: target.contextId,
      workflowId: target.workflowId,
      turn: target.turn,
      startSeq: snapshot.startSeq ?? snapshot.afterSeq,
    };
    const input: A2aPushInput = { task: pushTask, ...(this.settings.followLimitMs ? { followLimitMs: this.settings.followLimitMs } : {}) };
    try {
      await this.context.agents.temporal.workflow.executeUpdateWithStart(setPushConfigUpdate, {
        args: [record],
        startWorkflowOperation: new WithStartWorkflowOperation(A2aPushWireName.workflow, {
          workflowId: a2aPushWorkflowId(target.taskId),
          taskQueue: task.taskQueue,
          args: [input],
          // Every gateway sets configs on the one workflow of the task; one that ended is started anew.
          workflowIdConflictPolicy: 'USE_EXISTING',
          staticSummary: `A2A push notifications of task ${target.taskId}`,
        }),
      });
    } catch (error) {
      if (isPushRefusal(error, A2aPushFailure.configRefused) || isPushRefusal(error, A2aPushFailure.ended))
        throw new RequestMalformedError(`pushNotificationConfig: ${(error as WorkflowUpdateFailedError).cause?.message ?? 'refused'}`);
      throw error;
    }
    return { ...given, tenant: given.tenant ?? '', taskId: target.taskId };
  }

  /** A held config as the caller set it: its secrets opened for the caller who may read the task. */
  private shown(taskId: string, config: SealedPushConfig): TaskPushNotificationConfig {
    const secrets = config.sealed !== null ? openPushSecrets(config.sealed, this.settings.keys) : null;
    return {
      tenant: '',
      id: config.id,
      taskId,
      url: config.url,
      token: secrets?.token ?? '',
      authentication: secrets?.authentication ?? undefined,
    };
  }
}

function isPushRefusal(error: unknown, type: string): boolean {
  return error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure && error.cause.type === type;
}
