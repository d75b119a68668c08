import { ErrorCode } from '../protocol/errors';
import { splitModelString } from '../config/agent-config';
import { ModelError, type ModelProvider } from './model-provider';

/**
 * Providers by the prefix of a "provider:model" string: the worker resolves each model step's
 * model through it. Start from `defaultModelRegistry()` to keep the built-in providers.
 * @example
 * import { AgentPlugin, defaultModelRegistry, type ModelProvider } from 'durable-agents/worker';
 * import { inHouseProvider } from './in-house-provider';
 *
 * const models = defaultModelRegistry().register('inhouse', inHouseProvider satisfies ModelProvider);
 * const plugin = new AgentPlugin({ tools, models }); // configs may now say model: 'inhouse:large-v2'
 */
export class ModelRegistry {
  private readonly providers = new Map<string, ModelProvider>();

  /** Adds (or replaces) the provider of `prefix`; returns the registry, for chaining. */
  register(prefix: string, provider: ModelProvider): this {
    this.providers.set(prefix, provider);
    return this;
  }

  /**
   * The provider of a "provider:model" string and the model id after the prefix.
   * @throws ModelError with code `ModelNotFoundError` (not retried) naming the prefixes it has.
   */
  resolve(model: string): { provider: ModelProvider; modelId: string } {
    const { provider: prefix, modelId } = splitModelString(model);
    const provider = this.providers.get(prefix);
    if (!provider) {
      throw new ModelError(
        ErrorCode.modelNotFound,
        `No model provider '${prefix}' for model '${model}' (this worker has: ${[...this.providers.keys()].join(', ')})`,
      );
    }
    return { provider, modelId };
  }
}
