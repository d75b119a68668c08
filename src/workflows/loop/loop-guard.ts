// Loop detection in the step loop: each step's tool calls are checked before they run.
import type { Message, ToolCall } from '../../protocol/messages';
import {
  callFingerprint,
  describeLoop,
  findLoop,
  loopDetectionSettings,
  loopNotRunContent,
  loopNudgeMessage,
  loopStopDetail,
  loopVerdict,
} from '../rules/loop-detection';
import type { LoopState } from './loop-state';

/** What the step loop does about a step's calls: nothing, a nudge after their results, or a stop before they run. */
export type LoopCheck = { kind: 'none' } | { kind: 'nudge'; message: Message } | { kind: 'stop'; detail: string; notRunContent: string };

const NO_LOOP: LoopCheck = { kind: 'none' };

/**
 * Adds a step's calls to the run's loop watch and says what to do (the rule is in
 * loop-detection.ts).
 */
export function checkForLoop(state: LoopState, calls: readonly ToolCall[]): LoopCheck {
  const settings = loopDetectionSettings(state.config);
  if (settings === null) return NO_LOOP;
  const { finding, recent } = findLoop(
    state.loopWatch,
    calls.map((call) => callFingerprint(call, state.injectedArgNames)),
    settings,
  );
  const verdict = loopVerdict(state.loopWatch, finding);
  state.loopWatch.recent = recent;
  if (verdict.kind === 'none') return NO_LOOP;
  const { cycle, callIndex } = verdict.finding;
  const description = describeLoop(verdict.finding, calls[callIndex]!, state.injectedArgNames);
  const tools = cycle.map((entry) => entry.tool);
  state.events.push({ type: 'loop-detected', step: state.step, action: verdict.kind === 'nudge' ? 'nudged' : 'stopped', tools, description });
  if (verdict.kind === 'stop') return { kind: 'stop', detail: loopStopDetail(description, settings), notRunContent: loopNotRunContent(description) };
  state.loopWatch.nudged = true;
  return { kind: 'nudge', message: loopNudgeMessage(description, settings) };
}
