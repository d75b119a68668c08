// What a run knows of its workers' hooks: part of the loop's state (run-hooks.ts uses it).
import type { HookOpening, HookPoint } from '../../protocol/hook-types';
import type { ToolDecision } from '../../protocol/call-deciders';

/**
 * What a run knows of its workers' hooks (docs/hooks.md). The workflow cannot ask the workers
 * without a round trip, so it learns from the model steps it runs anyway: the first model call of
 * each execution (and of each thread turn) names the agent, and a worker with hooks for it answers
 * with their points in the step's result, which the history records (so a replay learns the same).
 * Until a step said so, the run issues no hook activity and only the first model call of an
 * execution (or turn) carries the agent's name: runs without hooks keep their commands and events.
 */
export interface RunHooks {
  /** The points the workers said they have hooks at for this agent (sticky within the execution). */
  points: HookPoint[];
  /** The start to announce in the next model call (a fresh run, a new turn). */
  opening: HookOpening | null;
  /** Whether a model call of this execution named the agent yet. */
  announced: boolean;
  /** The latest model step's before-tool decisions, by call id. */
  decisions: Record<string, ToolDecision>;
  /** Whether the run-end hooks were called (a failure after them does not call them again). */
  ended?: boolean;
}

/** A fresh run announces its start; a continued execution (or a thread, whose turns do) does not. */
export function initialRunHooks(opensRun: boolean): RunHooks {
  return { points: [], opening: opensRun ? { kind: 'run' } : null, announced: false, decisions: {} };
}
