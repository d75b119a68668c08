// The state of one agentThread execution: the step loop's state with the thread's input and its current turn's controls.
import type { ResolvedThreadInput } from '../../protocol/thread-types';
import type { AgentConfig } from '../../config/agent-config';
import type { CarriedState } from '../../protocol/run-types';
import { upgradeConfig } from '../../config/upgrade-config';
import { createLoopState, type LoopState, type ThreadExecution } from '../loop/loop-state';
import { initialInstructions } from '../rules/filled-instructions';

/** A thread's state: the loop's, with `execution.kind` `thread` (its input, the turn's cost base and interrupt flag). */
export type ThreadState = LoopState<ThreadExecution>;

/**
 * The state a thread starts from: its earlier messages only (each turn adds its own), or what the
 * execution it continues carried over. `continueAs` continues it as a thread (thread-lifecycle.ts).
 * Pure.
 */
export function createThreadState(
  input: ResolvedThreadInput,
  continueAs: (state: ThreadState, carry: CarriedState, next: AgentConfig) => Promise<never>,
): ThreadState {
  const config = upgradeConfig(input.config);
  const { carried } = input;
  // Every turn's tools (the memory tools among them) work for the thread's resource.
  const resourceId = input.settings.resourceId ?? undefined;
  const state: ThreadState = createLoopState(
    {
      config,
      carried,
      messages: carried ? [] : [...(input.messages ?? [])],
      agents: input.agents,
      timeouts: input.timeouts,
      resourceId,
      instructions: initialInstructions(config, carried, resourceId, 'thread'),
      opensRun: false,
    },
    {
      kind: 'thread',
      input,
      turnCostBase: undefined,
      interruptRequested: false,
      definitionBuild: undefined,
      continueAs: (carry, next) => continueAs(state, carry, next),
    },
  );
  return state;
}
