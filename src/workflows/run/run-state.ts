// The state of one agentRun execution: the step loop's state with the run's input as its execution.
import type { AgentConfig } from '../../config/agent-config';
import type { ResolvedRunInput, CarriedState } from '../../protocol/run-types';
import { upgradeConfig } from '../../config/upgrade-config';
import { createLoopState, type LoopState, type RunExecution } from '../loop/loop-state';
import { initialMessages } from '../rules/run-prompts';
import { initialInstructions } from '../rules/filled-instructions';

/** An agent run's state: the loop's, with `execution.kind` `run` (its input, its continue-as-new). */
export type RunState = LoopState<RunExecution>;

/**
 * The state a run starts from: fresh (its messages and task), or what the execution it continues
 * carried over. `continueAs` continues it as a run (run-continuation.ts). Pure.
 */
export function createRunState(
  input: ResolvedRunInput,
  continueAs: (state: RunState, carry: CarriedState, next: AgentConfig) => Promise<never>,
): RunState {
  const config = upgradeConfig(input.config);
  const { carried, resourceId } = input;
  const state: RunState = createLoopState(
    {
      config,
      carried,
      // A continuation holds the conversation by reference.
      messages: carried ? [] : initialMessages(input),
      agents: input.agents,
      timeouts: input.timeouts,
      resourceId,
      instructions: initialInstructions(config, carried, resourceId, 'run'),
      opensRun: !carried,
    },
    { kind: 'run', input, continueAs: (carry, next) => continueAs(state, carry, next) },
  );
  return state;
}
