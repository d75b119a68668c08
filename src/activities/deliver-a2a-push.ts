// The activity of a push workflow: follows its A2A task and posts every change of the task's state to each push config, resuming from its heartbeat.
import { Context } from '@temporalio/activity';
import { TaskState } from '@a2a-js/sdk';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { pushConfigsQuery, type A2aPushOutcome, type DeliverA2aPushInput, type SealedPushConfig } from '../protocol/a2a-push';
import { TaskFollower } from '../a2a-push/a2a-push-follow';
import { DEFAULT_POST_TRIES, postNotice, pushRequest, type PostTries } from '../a2a-push/a2a-push-posts';
import { openPushSecrets, type A2aPushKeys } from '../a2a-push/a2a-push-secrets';

export interface A2aPushDependencies {
  /** A client on the worker's namespace: it reads the task's events and history and the push workflow's configs. */
  a2aPushClient: Client;
  /** The keys that open the configs' secrets (the gateways'); without them this worker delivers nothing. */
  a2aPushKeys?: A2aPushKeys | null;
  /** @internal How hard one notification is tried (tests shorten it). */
  a2aPushTries?: PostTries;
}

/** What an attempt heartbeats, and the next attempt resumes from: per config, the index of the next notice to post. */
interface PushProgress {
  next: Record<string, number>;
  delivered: number;
  failed: number;
}

/**
 * `deliverA2aPush` follows the task's workflow (events query, long poll on its history) and posts
 * each change of the task's state to every config the push workflow holds now, in order per
 * config, each with its own tries and backoff. A config set later gets the task's state as it was
 * when it was set, then what follows. Ends once the task's final state was posted to every config
 * (or given up); a worker that stops mid-way leaves a heartbeat the next attempt resumes from.
 */
export function createDeliverA2aPush(dependencies: A2aPushDependencies) {
  return async function deliverA2aPush(input: DeliverA2aPushInput): Promise<A2aPushOutcome> {
    const context = Context.current();
    const keys = dependencies.a2aPushKeys;
    // Another worker of the queue may have the key: retried, not failed for good.
    if (!keys)
      throw ApplicationFailure.retryable(
        'this worker has no A2A push key (DURABLE_AGENTS_A2A_PUSH_KEY): it cannot open push configs',
        'A2aPushKeyMissing',
      );
    const client = dependencies.a2aPushClient;
    const tries = dependencies.a2aPushTries ?? DEFAULT_POST_TRIES;
    const progress: PushProgress = (context.info.heartbeatDetails as PushProgress | undefined) ?? { next: {}, delivered: 0, failed: 0 };
    const beat = () => context.heartbeat(progress);
    const follower = new TaskFollower(client, client.options.namespace, input.task);
    const pushWorkflow = client.workflow.getHandle(input.pushWorkflowId);
    const configsNow = async () => (await pushWorkflow.query(pushConfigsQuery)).configs;
    const signal = context.cancellationSignal;

    const deliverTo = async (config: SealedPushConfig) => {
      const secrets = config.sealed !== null ? openPushSecrets(config.sealed, keys) : null;
      for (let index = progress.next[config.id]!; index < follower.notices.length; index++) {
        const notice = follower.notices[index]!;
        const taken = await postNotice(config.url, pushRequest(notice, config, secrets), {
          tries,
          signal,
          onTry: beat,
          stillWanted: async () => (await configsNow()).some((current) => current.id === config.id),
        });
        if (taken) progress.delivered++;
        else progress.failed++;
        progress.next[config.id] = index + 1;
        beat();
      }
    };

    for (;;) {
      beat();
      await follower.read();
      const configs = await configsNow();
      for (const config of configs) progress.next[config.id] ??= firstNoticeFor(follower, config.setAfterSeq);
      await Promise.all(configs.map(deliverTo));
      if (follower.final) {
        const state = follower.notices.at(-1)?.task.status?.state;
        return { finalState: state !== undefined ? TaskState[state] : null, delivered: progress.delivered, failed: progress.failed };
      }
      await follower.waitForChange(signal);
    }
  };
}

/** The first notice a config set after event `afterSeq` gets: the task's state as it was then (the last notice at or before it), or the first. */
function firstNoticeFor(follower: TaskFollower, afterSeq: number): number {
  let index = 0;
  follower.notices.forEach((notice, at) => {
    if (notice.seq <= afterSeq) index = at;
  });
  return index;
}
