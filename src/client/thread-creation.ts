// What creates a thread with its first message: its workflow input and search attributes, validated before anything is sent.
import type { SearchAttributePair } from '@temporalio/common';
import { isDuration, parseDuration } from '../config/duration';
import { AgentConfigError } from '../protocol/errors';
import { threadStartAttributes } from '../protocol/thread-start-attributes';
import type { AgentThreadInput } from '../protocol/thread-types';
import { configHashOf, parsedConfigHashOf } from './config-hash';
import { assertInputFits } from './outgoing-checks';
import { prepareAgents } from './prepared-agents';
import type { ThreadOptions } from './thread-options';

/** What creates a thread: its workflow input and search attributes. */
export interface ThreadCreation {
  input: AgentThreadInput;
  attributes: SearchAttributePair[];
  /** The hash threads created by earlier versions hold (see `ThreadMessage.parsedConfigHash`). */
  parsedConfigHash: string;
}

/**
 * The creation of a thread from `options` (which must have a `config`), the same for a client's
 * first message (`ThreadHandle.send`) and a thread schedule's posts (`agents.schedules`).
 * @throws AgentConfigError for an invalid config, handoff agent, resource or idle timeout;
 * PayloadTooLargeError for an input over one payload.
 */
export function threadCreation(options: ThreadOptions & { config: NonNullable<ThreadOptions['config']> }): ThreadCreation {
  const { config, agents } = prepareAgents(options.config, options.agents, options.resourceId, 'thread');
  const input: AgentThreadInput = {
    config,
    configHash: configHashOf(options.config),
    settings: {
      policy: options.policy ?? 'enqueue',
      idleTimeoutMs: idleTimeoutMsOf(options.idleTimeout),
      resourceId: options.resourceId ?? null,
      ...(options.whenClosed ? { whenClosed: options.whenClosed } : {}),
    },
    ...(options.messages ? { messages: options.messages } : {}),
    ...(Object.keys(agents).length > 0 ? { agents } : {}),
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    ...(options.historyEventLimit !== undefined ? { historyEventLimit: options.historyEventLimit } : {}),
    ...(options.historySizeLimitBytes !== undefined ? { historySizeLimitBytes: options.historySizeLimitBytes } : {}),
  };
  const attributes = threadStartAttributes(config, options.resourceId, new Date());
  assertInputFits('a thread', input);
  return { input, attributes, parsedConfigHash: parsedConfigHashOf(config) };
}

function idleTimeoutMsOf(idleTimeout: string | number | undefined): number | null {
  if (idleTimeout === undefined) return null;
  if (typeof idleTimeout === 'number' && Number.isFinite(idleTimeout) && idleTimeout >= 1_000) return Math.round(idleTimeout);
  if (typeof idleTimeout === 'string' && isDuration(idleTimeout) && parseDuration(idleTimeout) >= 1_000) return parseDuration(idleTimeout);
  const problem = `idleTimeout: must be a duration of at least 1s (30s, 12h, 30d) or milliseconds, not ${JSON.stringify(idleTimeout)}`;
  throw new AgentConfigError(problem, [problem]);
}
