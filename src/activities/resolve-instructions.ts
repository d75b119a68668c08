// The resolveInstructions activity: an agent's instructions from the provider the worker registered under the config's name.
import type { Client } from '@temporalio/client';
import type { InstructionsProvider } from '../hooks/define-hook';
import { activityModelCallLimit } from './activity-model-call-limit';
import type { InstructionsRequest, InstructionsResolution } from '../protocol/hook-types';
import type { WorkflowRetriesInput } from '../protocol/run-types';
import { callFailure } from './activity-attempts';
import { whileHeartbeating } from './hook-support';
import { currentRunExecution } from './run-execution';

/** The longest instructions a provider may give (they travel in the history, and in a continuation). */
export const MAX_PROVIDED_INSTRUCTIONS_CHARACTERS = 64_000;

export interface InstructionsDependencies {
  /** The worker's instructions providers, by the name configs use (`instructions_provider`). */
  instructionsProviders?: Readonly<Record<string, InstructionsProvider>>;
  /** A client on the worker's namespace, for providers' model calls under a provider limit. */
  limiterClient?: Client;
}

/**
 * Asks the provider for the instructions; its answer is the activity's result, so the run's
 * history holds the prompt and a replay uses it. A provider this worker does not have, an answer
 * that is empty, not text or too long, is `unavailable` (the run then uses its static
 * instructions and says why); a provider that throws fails the try, and the workflow tries again
 * within the agent's `max_retries`.
 */
export function createResolveInstructions(dependencies: InstructionsDependencies) {
  return async function resolveInstructions(
    input: InstructionsRequest & { workflowRetries?: WorkflowRetriesInput },
  ): Promise<InstructionsResolution> {
    const providers = dependencies.instructionsProviders ?? {};
    const provider = Object.hasOwn(providers, input.provider) ? providers[input.provider] : undefined;
    if (!provider) {
      const known = Object.keys(providers);
      return { unavailable: `no instructions provider '${input.provider}' on this worker (it has: ${known.join(', ') || 'none'})` };
    }
    const { workflowRetries: _retries, provider: _name, providerLimits, ...context } = input;
    const withinProviderLimit = activityModelCallLimit(dependencies.limiterClient, providerLimits);
    let answer: unknown;
    try {
      const execution = currentRunExecution();
      answer = await whileHeartbeating(async () => provider({ ...context, ...execution, withinProviderLimit }));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw callFailure(input.workflowRetries, {
        type: 'InstructionsProviderFailed',
        message: `instructions provider '${input.provider}' failed: ${message}`,
        retryable: true,
      });
    }
    if (answer === null || answer === undefined || answer === '')
      return { unavailable: `instructions provider '${input.provider}' gave no instructions` };
    if (typeof answer !== 'string') return { unavailable: `instructions provider '${input.provider}' returned a ${typeof answer}, not text` };
    if (answer.length > MAX_PROVIDED_INSTRUCTIONS_CHARACTERS) {
      return {
        unavailable: `instructions provider '${input.provider}' gave ${answer.length} characters, more than ${MAX_PROVIDED_INSTRUCTIONS_CHARACTERS}`,
      };
    }
    return { instructions: answer };
  };
}
