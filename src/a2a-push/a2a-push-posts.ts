// Posting one push notification to one webhook: the A2A SDK's serializer for the config's wire version, the token header, tries with backoff.
import type { StreamResponse } from '@a2a-js/sdk';
import { V1PushNotificationSerializer } from '@a2a-js/sdk/server';
import { V03PushNotificationSerializer } from '@a2a-js/sdk/compat/v0_3/server';
import type { SealedPushConfig } from '../protocol/a2a-push';
import type { PushSecrets } from './a2a-push-secrets';
import type { PushNotice } from './a2a-push-follow';

/** The header a config's token is sent in (A2A's push notification token). */
export const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';

/** How hard one notification is tried before it is given up (the next one is then sent). */
export interface PostTries {
  attempts: number;
  firstDelayMs: number;
  maxDelayMs: number;
  /** One POST's time limit. */
  timeoutMs: number;
}

/** About 2 minutes of tries: 1, 2, 4, 8, 16, 30, 30 s apart. */
export const DEFAULT_POST_TRIES: PostTries = { attempts: 8, firstDelayMs: 1_000, maxDelayMs: 30_000, timeoutMs: 10_000 };

const serializers = { '1.0': new V1PushNotificationSerializer(), '0.3': new V03PushNotificationSerializer() } as const;

/** The HTTP request of one notice to one config: the task in the config's wire version's shape, its secrets as headers. */
export function pushRequest(
  notice: PushNotice,
  config: SealedPushConfig,
  secrets: PushSecrets | null,
): { body: string; headers: Record<string, string> } {
  const update: StreamResponse = { payload: { $case: 'task', value: notice.task } };
  const { body, contentType } = serializers[config.wireVersion].serialize(update, notice.task);
  const headers: Record<string, string> = { 'content-type': contentType };
  if (secrets?.token) headers[NOTIFICATION_TOKEN_HEADER] = secrets.token;
  if (secrets?.authentication) headers.authorization = `${secrets.authentication.scheme} ${secrets.authentication.credentials}`;
  return { body, headers };
}

/**
 * Posts one notice until the webhook answers 2xx, with backoff between tries; `stillWanted` is
 * asked before each retry (a config deleted meanwhile stops its tries). Redirects are not
 * followed (a webhook host that was checked must not send the notice on elsewhere).
 * @returns whether the webhook took it.
 */
export async function postNotice(
  url: string,
  request: { body: string; headers: Record<string, string> },
  options: { tries: PostTries; signal: AbortSignal; stillWanted: () => Promise<boolean>; onTry: () => void },
): Promise<boolean> {
  let delay = options.tries.firstDelayMs;
  for (let attempt = 1; attempt <= options.tries.attempts; attempt++) {
    if (attempt > 1) {
      await sleep(delay, options.signal);
      delay = Math.min(delay * 2, options.tries.maxDelayMs);
      if (!(await options.stillWanted())) return false;
    }
    options.onTry();
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        signal: AbortSignal.any([options.signal, AbortSignal.timeout(options.tries.timeoutMs)]),
      });
      await response.body?.cancel();
      if (response.status >= 200 && response.status < 300) return true;
    } catch (error) {
      if (options.signal.aborted) throw error;
    }
  }
  return false;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
