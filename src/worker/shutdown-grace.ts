// How long a stopping worker lets its in-flight activities finish: the default, and reading it from the environment.
import { formatDuration, isDuration, parseDuration } from '../config/duration';
import { AgentConfigError } from '../protocol/errors';

/**
 * The default shutdown grace: 10 minutes, a tool's default timeout (`timeouts.tool`), so a call
 * that started just before SIGTERM can still finish on the worker it started on. Whatever still
 * runs after it is cancelled and retried on another worker. A supervisor must wait longer than
 * this before it kills the process: docker-compose.yml's `stop_grace_period` is 11m.
 */
export const DEFAULT_SHUTDOWN_GRACE_MS = 600_000;

/** The environment variable `createAgentWorker` and `durable-agents worker` read the grace from. */
export const SHUTDOWN_GRACE_VARIABLE = 'AGENT_WORKER_SHUTDOWN_GRACE';

/**
 * Milliseconds of a shutdown grace written as a duration (`30s`, `10m`, `0s`).
 * @throws AgentConfigError naming `source` (a flag or variable) and what would be valid.
 */
export function parseShutdownGrace(text: string, source: string): number {
  if (!isDuration(text)) {
    const problem = `${source}: '${text}' is not a duration such as 30s or 10m (how long a stopping worker lets in-flight tasks finish; default ${formatDuration(DEFAULT_SHUTDOWN_GRACE_MS)})`;
    throw new AgentConfigError(problem, [problem]);
  }
  return parseDuration(text);
}

/** The grace `AGENT_WORKER_SHUTDOWN_GRACE` sets, or undefined when it is unset or empty. */
export function shutdownGraceFromEnvironment(environment: NodeJS.ProcessEnv = process.env): number | undefined {
  const text = environment[SHUTDOWN_GRACE_VARIABLE];
  return text ? parseShutdownGrace(text, SHUTDOWN_GRACE_VARIABLE) : undefined;
}
