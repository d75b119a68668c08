// Lifecycle hooks as users write them: defineHook and the instructions provider type.
import { HOOK_POINTS, type HookPoint, type InstructionsFacts } from '../protocol/hook-types';
import { HookDefinitionError } from '../protocol/errors';
import type { HookEvents, HookResults } from './hook-events';

/** What `defineHook` takes: a name (for reports), a point, optionally the agents it is for, and the function. */
export interface HookDefinition<P extends HookPoint> {
  /** Names the hook in logs, `hook-failed` events and failures. Unique on a worker. */
  name: string;
  point: P;
  /** The agents (config `name`s) whose runs it applies to. Default: every agent. */
  agents?: readonly string[];
  /**
   * Ordinary async worker code: it may do I/O. It runs inside an activity of the run, at least
   * once (a retried activity runs it again; `event.attempt` says which try). What it returns
   * (where its point lets it return something) is recorded in the run's history.
   */
  run: (event: HookEvents[P]) => HookResults[P] | Promise<HookResults[P]>;
  /**
   * Its time limit, in milliseconds (default: the worker's `hookTimeoutMs`, 30 seconds unless
   * given). A hook that has not returned by then is a hook failure, handled by the agent's
   * `hook_errors` as if it threw; its promise is left to finish in the background. A hook never
   * runs past its activity's own start-to-close timeout, whatever its limit.
   */
  timeoutMs?: number;
}

/** A hook made by `defineHook`, ready to give to `AgentPlugin({ hooks })` or `createAgentWorker({ hooks })`. */
export interface Hook<P extends HookPoint = HookPoint> {
  readonly name: string;
  readonly point: P;
  /** The agents it applies to; null: every agent. */
  readonly agents: readonly string[] | null;
  readonly run: (event: HookEvents[P]) => HookResults[P] | Promise<HookResults[P]>;
  /** Its own time limit (ms); undefined: the worker's. */
  readonly timeoutMs?: number;
}

/** Any hook, whatever its point (what a worker's `hooks` list holds). */
export type AnyHook = { [P in HookPoint]: Hook<P> }[HookPoint];

/**
 * A lifecycle hook (docs/hooks.md): worker code that runs at a point of every run (or of the
 * named agents' runs). Hooks at `after-model`, `before-tool` and `after-tool` can change what the
 * run does (redact text, decide a tool call, transform a result); the others observe.
 * @throws HookDefinitionError when the name is empty, the point unknown, or `run` not a function.
 * @example
 * import { defineHook } from 'durable-agents/worker';
 *
 * export const refundLimit = defineHook({
 *   name: 'refund-limit',
 *   point: 'before-tool',
 *   agents: ['refunds'],
 *   run: ({ call }) =>
 *     call.name === 'refund' && Number(call.args.amount) > 100
 *       ? { action: 'require_approval', reason: 'refunds over 100 need approval' }
 *       : undefined,
 * });
 */
export function defineHook<P extends HookPoint>(definition: HookDefinition<P>): Hook<P> {
  const { name, point, agents, run, timeoutMs } = definition;
  if (typeof name !== 'string' || name.trim() === '') throw new HookDefinitionError('A hook needs a name (it names the hook in reports)');
  if (!HOOK_POINTS.includes(point))
    throw new HookDefinitionError(`Hook '${name}': unknown point '${String(point)}' (points: ${HOOK_POINTS.join(', ')})`);
  if (typeof run !== 'function') throw new HookDefinitionError(`Hook '${name}': run must be a function`);
  if (agents !== undefined && (!Array.isArray(agents) || agents.some((agent) => typeof agent !== 'string' || agent === ''))) {
    throw new HookDefinitionError(`Hook '${name}': agents must be a list of agent names`);
  }
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0)) {
    throw new HookDefinitionError(`Hook '${name}': timeoutMs must be a positive number of milliseconds, not ${String(timeoutMs)}`);
  }
  return { name, point, agents: agents ? [...agents] : null, run, ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
}

/** What an instructions provider is told: the agent, the run's (or turn's) context, and which execution asks. */
export interface InstructionsContext extends InstructionsFacts {
  workflowId: string;
  runId: string;
  /**
   * Runs `call` (a model call of the provider's own) once the agent's provider limit of `model`
   * lets it go, shared with every run's model steps (docs/provider-limits.md); without a limit for
   * `model` in the agent's `provider_limits`, runs it at once. `estimatedTokens` (default 1,024)
   * is what a token limit charges for it.
   * @example
   * const providers: Record<string, InstructionsProvider> = {
   *   'written-prompt': ({ task, withinProviderLimit }) => withinProviderLimit('openai:gpt-4o-mini', () => writePrompt(task), { estimatedTokens: 800 }),
   * };
   */
  withinProviderLimit<Result>(model: string, call: () => Promise<Result>, options?: { estimatedTokens?: number }): Promise<Result>;
}

/**
 * Writes an agent's instructions at the start of each run and thread turn (config
 * `instructions_provider: <its name>`). It runs in an activity, so its answer is recorded and the
 * run replays with it. Return the instructions; `null` (or an empty string) uses the static ones.
 * A provider that throws is tried again (up to the agent's `max_retries`), then the static
 * instructions are used and the run says why (`instructions-resolved` event).
 * @example
 * const providers: Record<string, InstructionsProvider> = {
 *   'support-prompt': async ({ agent, resourceId }) => `You are ${agent}. The customer is ${await customerName(resourceId)}.`,
 * };
 */
export type InstructionsProvider = (context: InstructionsContext) => string | null | undefined | Promise<string | null | undefined>;
