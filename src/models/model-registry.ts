import { ErrorCode } from '../shared/errors';
import { splitModelString } from '../shared/agent-config';
import { ModelError, type ModelProvider } from './model-provider';

/** Providers by the prefix of a "provider:model" string. */
export class ModelRegistry {
  private readonly providers = new Map<string, ModelProvider>();

  register(prefix: string, provider: ModelProvider): this {
    this.providers.set(prefix, provider);
    return this;
  }

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
