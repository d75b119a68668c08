// The step loop shared by agent runs and thread turns: model step, then tools, until an answer.
import type { ToolCall } from '../../protocol/messages';
import { toToolMessage } from '../rules/tool-result-builders';
import { ErrorCode } from '../../protocol/errors';
import { workflowErrorResult } from '../rules/tool-result-builders';
import type { ApprovalGate } from './approval-gate';
import { continuationDue, continueToKeepHistorySmall, handOff } from './continuation';
import { maxStepsDetail } from '../rules/loop-decisions';
import { nextMove } from '../../protocol/step-moves';
import { checkForLoop } from './loop-guard';
import { executorStep } from './model-calls';
import { drainInjectedMessages } from './run-handlers';
import { enterPhase } from './run-lifecycle';
import { interruptRequested, recordToolResult, type LoopState } from './loop-state';
import type { StepsEnd } from './steps-end';
import { reloadSkillsIfNeeded } from './skill-updates';
import { runToolCalls } from './tool-dispatch';

/** What the model sees for a tool call a stopped turn did not run (the conversation stays well-formed). */
const NOT_RUN_INTERRUPTED = 'Not run: a newer user message interrupted this turn.';

/**
 * Steps from `fromStep` to `state.stepLimit`: continue as new if the history is long → reload
 * skill sources that showed a gap → drain injected messages → model step → finish, ask for an
 * output correction, or run the requested tool calls (in parallel; gated ones after a decision) →
 * hand off if a transfer tool was called. Ends with a text answer, `max_steps`, or `loop_detected`
 * (loop-guard.ts: a step's calls that loop again after a nudge do not run); a `RunStop` (budget,
 * context length) propagates to the caller.
 *
 * A thread's turn may be interrupted (`interruptRequested`): it stops before its next model
 * call, and tool calls the model asked for in the meantime get a "not run" error result instead of
 * running. Runs never set it, so their commands are unchanged.
 */
export async function takeSteps(state: LoopState, approvals: ApprovalGate, fromStep: number): Promise<StepsEnd> {
  const { config, threads, events } = state;
  for (state.step = fromStep; state.step <= state.stepLimit; state.step++) {
    if (interruptRequested(state)) return interrupted(state, state.step - 1);
    // Awaited only when there is something to do: each await costs promises (settle.ts).
    if (continuationDue(state)) await continueToKeepHistorySmall(state);
    if (state.skillReloads.size > 0) await reloadSkillsIfNeeded(state);
    drainInjectedMessages(state);
    enterPhase(state, 'model');
    const reply = await executorStep(state);
    threads.push('executor', reply.message);
    if (reply.message.content) events.push({ type: 'text-produced', step: state.step, text: reply.message.content });

    const move = nextMove(reply, state.step, state.stepLimit);
    if (move.kind !== 'run-tools' && move.outputRejected !== undefined) {
      events.push({ type: 'output-rejected', step: state.step, reason: move.outputRejected });
    }
    if (move.kind === 'finish') return { reason: move.stopReason, output: move.output, extra: move.extra ?? {} };
    if (move.kind === 'correct-output') {
      threads.push('executor', move.correction);
      continue;
    }
    if (interruptRequested(state)) {
      notRun(state, move.calls, NOT_RUN_INTERRUPTED);
      return interrupted(state, state.step);
    }
    const loop = checkForLoop(state, move.calls);
    if (loop.kind === 'stop') {
      notRun(state, move.calls, loop.notRunContent, ErrorCode.loopStopped);
      return { reason: 'loop_detected', output: threads.lastAssistantText(), extra: { stopDetail: loop.detail } };
    }

    enterPhase(state, 'tools');
    for (const result of await runToolCalls(state, approvals, move.calls, `step-${state.step}`)) {
      threads.push('executor', toToolMessage(result));
      recordToolResult(state, result);
    }
    if (loop.kind === 'nudge') {
      threads.push('executor', loop.message);
      state.loopNudge = loop.message.content;
    }
    if (state.handoffTo !== null) await handOff(state, state.handoffTo);
  }
  state.step = state.stepLimit;
  return { reason: 'max_steps', output: threads.lastAssistantText(), extra: { stopDetail: maxStepsDetail(config) } };
}

/**
 * Error results for calls a stopped step did not run, so the conversation stays well-formed (every
 * call answered). With `recordAs` (a loop stop), each is also one of the run's tool results, so the
 * result and `history` show it.
 */
function notRun(state: LoopState, calls: readonly ToolCall[], content: string, recordAs?: string): void {
  for (const call of calls) {
    state.threads.push('executor', { role: 'tool', toolCallId: call.id, toolName: call.name, content, isError: true });
    if (recordAs) recordToolResult(state, workflowErrorResult(call, state.step, Date.now(), content, recordAs));
  }
}

/** The end of an interrupted turn, whose last step taken was `lastStep`: its last text so far. */
function interrupted(state: LoopState, lastStep: number): StepsEnd {
  state.step = lastStep;
  return { reason: 'interrupted', output: state.threads.lastAssistantText(), extra: { stopDetail: 'A newer user message interrupted this turn' } };
}
