// The rule a run's task meets wherever a run is started from (AgentClient.startRun, runAgent).
import { AgentConfigError } from './errors';

/**
 * Throws `AgentConfigError` with the problem `task: …` unless `task` is a string with text in it:
 * a blank task starts a run whose first model call has nothing to answer. Sandbox-safe, so the
 * client and users' workflows (`runAgent`) refuse the same tasks with the same error.
 */
export function assertRunTask(task: unknown): asserts task is string {
  const problem =
    typeof task !== 'string'
      ? `task: must be a string, not ${task === null ? 'null' : typeof task}`
      : task.trim() === ''
        ? 'task: must not be empty'
        : null;
  if (problem) throw new AgentConfigError(problem, [problem]);
}
