import { AgentRuntimeError, ErrorCode } from '../protocol/errors';

/**
 * An agent definition a worker cannot serve (code `AgentDefinitionInvalid`): it does not validate,
 * names a tool, an instructions provider or a handoff target the worker lacks, or repeats a name.
 * `where` is the definition's file (an agents folder) or `agent '<name>'` (defineAgent); `problems`
 * has one line per field, `<field>: <what is wrong>`.
 * @example
 * try {
 *   await createAgentWorker({ tools, agentsFolder: 'agents' });
 * } catch (error) {
 *   if (error instanceof AgentDefinitionError) console.error(error.where, error.problems);
 * }
 */
export class AgentDefinitionError extends AgentRuntimeError {
  constructor(
    readonly where: string,
    readonly problems: string[],
  ) {
    super(ErrorCode.agentDefinitionInvalid, `Invalid agent definition in ${where}:\n  ${problems.join('\n  ')}`);
  }
}
