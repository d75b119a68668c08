/**
 * Splits the arguments a model sent into the executable ones (the only ones a tool receives) and
 * the injected, schema-only ones (kept for metadata and approvals).
 */
export function splitInjectedArgs(
  args: Record<string, unknown>,
  injectedArgNames: readonly string[],
): { executable: Record<string, unknown>; injected: Record<string, unknown> } {
  const executable: Record<string, unknown> = {};
  const injected: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args ?? {})) {
    if (injectedArgNames.includes(name)) injected[name] = value;
    else executable[name] = value;
  }
  return { executable, injected };
}
