import { AiSdkProvider } from '../models/ai-sdk-provider';
import { ModelRegistry } from '../models/model-registry';
import { ScriptedModel } from '../models/scripted-model';

/**
 * The providers a worker has by default: `scripted:` (offline, deterministic) and the real ones
 * (`openai:`, `anthropic:`, `openai-compatible:`), which read their keys when a step runs (a missing
 * key fails that step with `MissingApiKey`, naming the variable). Pass your own `ScriptedModel` to
 * give it scripts; `register` more providers on the result.
 * @example
 * import { AgentPlugin, defaultModelRegistry, ScriptedModel } from 'durable-agents/worker';
 *
 * const scripted = new ScriptedModel({ baseDir: 'test/scripts' });
 * const plugin = new AgentPlugin({ tools, models: defaultModelRegistry(scripted) });
 */
export function defaultModelRegistry(scripted: ScriptedModel = new ScriptedModel()): ModelRegistry {
  return new ModelRegistry()
    .register('scripted', scripted)
    .register('openai', new AiSdkProvider('openai'))
    .register('anthropic', new AiSdkProvider('anthropic'))
    .register('openai-compatible', new AiSdkProvider('openai-compatible'));
}
