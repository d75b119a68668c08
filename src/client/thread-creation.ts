// What creates a thread: its workflow input and search attributes, from the handle's options (validated before anything is sent).
import type { SearchAttributePair } from '@temporalio/common';
import { isDuration, parseDuration } from '../config/duration';
import type { AgentReference } from '../protocol/agent-reference';
import { AgentConfigError } from '../protocol/errors';
import { threadStartAttributes } from '../protocol/thread-start-attributes';
import type { AgentThreadInput } from '../protocol/thread-types';
import { chooseAgent } from './agent-choice';
import { agentNameHashOf, configHashOf, parsedConfigHashOf } from './config-hash';
import { assertInputFits } from './outgoing-checks';
import type { ThreadOptions } from './thread-options';

/** What creates a thread: its workflow input and search attributes. */
export interface ThreadCreation {
  input: AgentThreadInput;
  attributes: SearchAttributePair[];
  /** The hash threads created by earlier versions hold (see `ThreadMessage.parsedConfigHash`); none for a named agent. */
  parsedConfigHash?: string;
  /** The agent the workers must offer, for a thread that names one. */
  reference?: AgentReference;
  /** The agent's name, for summaries. */
  agentName: string;
}

/**
 * The thread's input and search attributes for its creation: an inline config (parsed, its
 * handoff agents resolved), or a named agent the workers resolve (`agent`, `overrides`, `pin`).
 * @throws AgentConfigError naming the option; PayloadTooLargeError for an input over 1 MB of JSON.
 */
export function threadCreation(options: ThreadOptions): ThreadCreation {
  const choice = chooseAgent(options, 'thread');
  if (options.pin !== undefined && choice.kind !== 'named') refuse('pin: only for a named agent (agent)');
  const agentName = choice.kind === 'named' ? choice.reference.name : choice.config.name;
  const input: AgentThreadInput = {
    ...(choice.kind === 'named'
      ? { agent: choice.reference, ...(options.pin ? { pinVersion: true } : {}), configHash: agentNameHashOf(agentName) }
      : { config: choice.config, configHash: configHashOf(options.config!) }),
    settings: {
      policy: options.policy ?? 'enqueue',
      idleTimeoutMs: idleTimeoutMsOf(options.idleTimeout),
      resourceId: options.resourceId ?? null,
      ...(options.whenClosed ? { whenClosed: options.whenClosed } : {}),
    },
    ...(options.messages ? { messages: options.messages } : {}),
    ...(choice.kind === 'inline' && Object.keys(choice.agents).length > 0 ? { agents: choice.agents } : {}),
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    ...(options.historyEventLimit !== undefined ? { historyEventLimit: options.historyEventLimit } : {}),
    ...(options.historySizeLimitBytes !== undefined ? { historySizeLimitBytes: options.historySizeLimitBytes } : {}),
  };
  const attributes = threadStartAttributes(choice.kind === 'named' ? { name: agentName } : choice.config, options.resourceId, new Date());
  assertInputFits('a thread', input);
  return choice.kind === 'named'
    ? { input, attributes, reference: choice.reference, agentName }
    : { input, attributes, parsedConfigHash: parsedConfigHashOf(choice.config), agentName };
}

function idleTimeoutMsOf(idleTimeout: string | number | undefined): number | null {
  if (idleTimeout === undefined) return null;
  if (typeof idleTimeout === 'number' && Number.isFinite(idleTimeout) && idleTimeout >= 1_000) return Math.round(idleTimeout);
  if (typeof idleTimeout === 'string' && isDuration(idleTimeout) && parseDuration(idleTimeout) >= 1_000) return parseDuration(idleTimeout);
  return refuse(`idleTimeout: must be a duration of at least 1s (30s, 12h, 30d) or milliseconds, not ${JSON.stringify(idleTimeout)}`);
}

function refuse(problem: string): never {
  throw new AgentConfigError(problem, [problem]);
}
