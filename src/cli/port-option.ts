// The `--port` option of the commands that serve something (console, gateway).
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
