/**
 * Context windows (tokens) of known models, by model id prefix; the longest matching prefix wins.
 * Unknown models need `context_window` in the agent config when budget awareness is on.
 * Pure data: shared by the client (config validation) and the worker.
 */
const CONTEXT_WINDOWS: Array<[prefix: string, tokens: number]> = [
  ['gpt-4o', 128_000],
  ['gpt-4.1', 1_047_576],
  ['gpt-4-turbo', 128_000],
  ['gpt-4', 8_192],
  ['gpt-3.5-turbo', 16_385],
  ['gpt-5', 400_000],
  ['o1', 200_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
  ['claude-', 200_000],
  ['llama3', 8_192],
  ['llama3.1', 128_000],
  ['qwen2.5', 32_768],
  ['mistral', 32_768],
];

/** The context window of "provider:model", or null when unknown. */
export function knownContextWindow(model: string): number | null {
  const modelId = model.slice(model.indexOf(':') + 1);
  let best: [string, number] | null = null;
  for (const entry of CONTEXT_WINDOWS) {
    if (modelId.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best ? best[1] : null;
}
