// How the command line prints a failure: the message and its causes on one line, with the error type.

/** The message and its causes ("Workflow execution failed: Model step … failed: …"), with the error type. */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let type: string | undefined;
  for (let current: unknown = error; current instanceof Error && parts.length < 5; current = current.cause) {
    if (!parts.some((part) => part.includes(current.message))) parts.push(current.message);
    type = (current as { type?: string }).type ?? type;
  }
  return parts.length > 0 ? `${parts.join(': ')}${type ? ` (${type})` : ''}` : String(error);
}
