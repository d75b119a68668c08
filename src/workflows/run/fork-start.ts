import { ApplicationFailure, isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { SearchAttributePair } from '@temporalio/common';
import { AgentEvaluationAttribute, AgentForkOfAttribute } from '../../protocol/search-attributes';
import type { AgentActivities } from '../../activities';
import { ErrorCode } from '../../protocol/errors';
import { answerEventsWhileStarting } from './starting-events';
import type { ResolvedRunInput } from '../../protocol/run-types';
import { infrastructureRetryPolicy } from '../rules/infrastructure-retry-policy';
import { emptyUsage } from '../rules/usage-totals';
import { describeFailure } from '../rules/describe-failure';
import type { RunState } from './run-state';

/**
 * A fork's start (`ResolvedRunInput.fork`, first execution only): its conversation is the origin's
 * up to the end of the forked step, read by an activity and held by reference, so the fork starts
 * like a run that continued as new at that step: step numbers go on from there, the planner does
 * not run again, and its `max_steps` count from the fork point. Runs without `fork` never come here.
 */

/**
 * The fork's input with the origin's conversation as carried state. While the activity runs, the
 * `events` query answers an empty page (the run's handlers are installed once its state exists),
 * so a client that follows the fork from its start waits instead of failing.
 */
export async function inputFromOrigin(input: ResolvedRunInput): Promise<ResolvedRunInput> {
  const fork = input.fork!;
  answerEventsWhileStarting();
  const { loadForkOrigin } = proxyActivities<AgentActivities>({
    activityId: 'fork.load-origin',
    summary: `read the conversation of ${fork.workflowId} up to step ${fork.step}`,
    startToCloseTimeout: input.timeouts?.modelStepMs ?? '5m',
    retry: infrastructureRetryPolicy(30_000),
  });
  try {
    const edits = fork.edits && fork.edits.length > 0 ? { edits: fork.edits } : {};
    const conversation = await loadForkOrigin({
      origin: { workflowId: fork.workflowId, runId: fork.runId },
      conversation: fork.conversation,
      taskIndex: fork.taskIndex,
      ...edits,
    });
    return {
      ...input,
      carried: {
        conversation,
        taskIndex: fork.taskIndex,
        step: fork.step,
        stepBase: fork.step,
        usage: emptyUsage(),
        toolResultCount: 0,
        plan: null,
        compactions: 0,
        recentEvents: [],
        lastEventSeq: 0,
        continuations: 0,
        handoffs: [],
      },
    };
  } catch (error) {
    if (isCancellation(error)) throw error;
    throw ApplicationFailure.nonRetryable(
      `Cannot read the conversation of ${fork.workflowId} up to step ${fork.step}: ${describeFailure(error)}`,
      ErrorCode.forkRefused,
    );
  }
}

/** The fork's first event says where it came from; the message it was given (if any) joins the conversation. */
export function announceFork(state: RunState): void {
  const fork = state.execution.input.fork!;
  const { config } = state;
  state.events.push({
    type: 'run-forked',
    from: { workflowId: fork.workflowId, runId: fork.runId },
    step: fork.step,
    agent: config.name,
    model: config.model,
    message: fork.message ?? null,
    ...(fork.edits && fork.edits.length > 0 ? { edits: fork.edits.map(({ kind, step }) => ({ kind, step })) } : {}),
  });
  if (fork.message) state.threads.push('executor', { role: 'user', content: fork.message });
}

/**
 * The links a handoff keeps: its search attributes replace the run's, so a fork or an evaluation
 * run that hands off would otherwise lose `AgentForkOf` / `AgentEvaluation`. Empty for other runs
 * (so their handoff commands are unchanged).
 */
export function originLinkAttributes(): SearchAttributePair[] {
  const current = workflowInfo().typedSearchAttributes;
  return [AgentForkOfAttribute, AgentEvaluationAttribute].flatMap((key) => {
    const value = current.get(key);
    return value ? [{ key, value }] : [];
  });
}
