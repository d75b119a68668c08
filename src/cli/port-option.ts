// The number options of the commands that serve something (console, gateway): `--port`, and counts such as `--max-streams`.
import { AgentConfigError } from '../protocol/errors';

/**
 * The port `--port` names, or `fallback` when it is not given (0 picks a free port).
 * @throws AgentConfigError naming `--port` for anything but a whole number from 0 to 65535.
 */
export function portOption(value: string | undefined, fallback: number): number {
  const port = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new AgentConfigError(`--port: expected a port number, got '${value}'`, [`--port: ${value}`]);
  return port;
}

/**
 * The whole number from 1 a count option (`--max-streams`) names, or undefined when it is not given.
 * @throws AgentConfigError naming `flag` for anything else.
 */
export function countOption(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const count = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(count) || count < 1)
    throw new AgentConfigError(`${flag}: expected a whole number from 1, got '${value}'`, [`${flag}: ${value}`]);
  return count;
}
