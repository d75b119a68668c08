// Loop detection, pure: a run whose tool calls repeat the same call, or the same cycle of calls, too many times in a row.
import { stringify } from 'safe-stable-stringify';
import type { AgentConfig } from '../../config/agent-config';
import type { CallFingerprint, LoopWatch } from '../../protocol/loop-watch';
import type { Message, ToolCall } from '../../protocol/messages';
import { splitInjectedArgs } from '../../protocol/split-injected-args';
import { fnv1a64 } from './workflow-ids';

/**
 * The rule (docs/loop-detection.md), free of Temporal calls so test/unit/loop-detection.test.ts covers
 * it without a server:
 * - two calls are the same call when they name the same tool and their executable arguments (the
 *   injected ones left out) have the same canonical JSON (keys sorted at every level);
 * - the calls of a run (or a thread's turn) form one sequence, in step order and, within a step,
 *   in the order the model listed them;
 * - a loop is the sequence ending in the same block of k calls (1 ≤ k ≤ `max_cycle_length`) more
 *   than `max_repeats` times in a row: k = 1 is one call repeated, k > 1 a cycle (a b a b ...);
 * - the first loop of a run nudges it (a message the model sees after the step's results); a loop
 *   found after that stops the run with `loop_detected`, before the step's calls run.
 */

/** The settings of an agent whose loop detection is on. */
export type LoopDetectionSettings = Exclude<AgentConfig['loop_detection'], false>;

/** A loop found among a step's calls. */
export interface LoopFinding {
  /** The repeated block, oldest call first: one call when the same call repeats. */
  cycle: CallFingerprint[];
  /** The index, among the step's calls, of the call that made one repetition too many. */
  callIndex: number;
}

/** What loop detection does about a step's calls. */
export type LoopVerdict = { kind: 'none' } | { kind: 'nudge' | 'stop'; finding: LoopFinding };

/** What a fresh run (or a thread's new turn) remembers: nothing. */
export function emptyLoopWatch(): LoopWatch {
  return { recent: [], nudged: false };
}

/** The settings of a config, or null when `loop_detection` is off. */
export function loopDetectionSettings(config: Pick<AgentConfig, 'loop_detection'>): LoopDetectionSettings | null {
  return config.loop_detection === false ? null : config.loop_detection;
}

/** The canonical JSON of a call's executable arguments: keys sorted at every level, injected arguments left out. */
export function canonicalArguments(call: ToolCall, injectedArgNames: readonly string[]): string {
  return stringify(splitInjectedArgs(call.args, injectedArgNames).executable);
}

/** A call as loop detection compares it: its tool and a hash of its canonical executable arguments. */
export function callFingerprint(call: ToolCall, injectedArgNames: readonly string[]): CallFingerprint {
  return { tool: call.name, key: fnv1a64(`${call.name}\u0000${canonicalArguments(call, injectedArgNames)}`) };
}

/**
 * Adds a step's calls to what the run remembers and finds the first call among them that makes a
 * loop (see the rule above). `recent` is what to remember next: the newest
 * `(max_repeats + 1) × max_cycle_length` calls, all the rule ever looks at.
 */
export function findLoop(
  watch: LoopWatch,
  calls: readonly CallFingerprint[],
  settings: LoopDetectionSettings,
): { finding: LoopFinding | null; recent: CallFingerprint[] } {
  const sequence = [...watch.recent];
  let finding: LoopFinding | null = null;
  calls.forEach((call, callIndex) => {
    sequence.push(call);
    if (finding === null) finding = loopAtEnd(sequence, settings, callIndex);
  });
  const keep = (settings.max_repeats + 1) * settings.max_cycle_length;
  return { finding, recent: sequence.slice(-keep) };
}

/** The shortest block the sequence ends with more than `max_repeats` times in a row, if any. */
function loopAtEnd(sequence: readonly CallFingerprint[], settings: LoopDetectionSettings, callIndex: number): LoopFinding | null {
  for (let length = 1; length <= settings.max_cycle_length; length++) {
    if (repeatsAtEnd(sequence, length, settings.max_repeats + 1) > settings.max_repeats) return { cycle: sequence.slice(-length), callIndex };
  }
  return null;
}

/** How many times in a row (at most `limit`) the sequence ends with its last `length` calls. */
function repeatsAtEnd(sequence: readonly CallFingerprint[], length: number, limit: number): number {
  const end = sequence.length;
  let repeats = 1;
  while (repeats < limit && end - (repeats + 1) * length >= 0 && sameBlock(sequence, end - length, end - (repeats + 1) * length, length)) repeats++;
  return repeats;
}

function sameBlock(sequence: readonly CallFingerprint[], first: number, second: number, length: number): boolean {
  for (let offset = 0; offset < length; offset++) {
    const a = sequence[first + offset]!;
    const b = sequence[second + offset]!;
    if (a.tool !== b.tool || a.key !== b.key) return false;
  }
  return true;
}

/** The first loop of a run nudges it; any loop after the nudge stops it. */
export function loopVerdict(watch: LoopWatch, finding: LoopFinding | null): LoopVerdict {
  if (finding === null) return { kind: 'none' };
  return { kind: watch.nudged ? 'stop' : 'nudge', finding };
}

/** Arguments shown in messages are cut here: enough to recognise the call. */
const ARGUMENTS_PREVIEW_LENGTH = 200;

/**
 * The loop in words: "'get_weather' with the same arguments ({"city":"Paris"})" for one call (its
 * arguments from `call`, the step's call that made the loop), "the calls search → open_page in
 * turn" for a cycle.
 */
export function describeLoop(finding: LoopFinding, call: ToolCall, injectedArgNames: readonly string[]): string {
  if (finding.cycle.length > 1) return `the same ${finding.cycle.length} calls in turn (${finding.cycle.map((entry) => entry.tool).join(' → ')})`;
  const args = canonicalArguments(call, injectedArgNames);
  const preview = args.length > ARGUMENTS_PREVIEW_LENGTH ? `${args.slice(0, ARGUMENTS_PREVIEW_LENGTH)}…` : args;
  return `'${call.name}' with the same arguments (${preview})`;
}

/** The message the model sees after the results of the step that made the loop (made `max_repeats + 1` times in a row). */
export function loopNudgeMessage(description: string, settings: LoopDetectionSettings): Message {
  return {
    role: 'user',
    content:
      `[loop detection] You have called ${description} ${settings.max_repeats + 1} times in a row (this agent allows ${settings.max_repeats}). ` +
      'Calling it again will not give you anything new. Change your approach, or give your final answer with what you have. ' +
      'If the calls go on repeating, you will be stopped.',
  };
}

/** Why a run stopped on a loop (its `stopDetail`). */
export function loopStopDetail(description: string, settings: LoopDetectionSettings): string {
  return `Stopped by loop detection: the model called ${description} more than ${settings.max_repeats} times in a row after it had been told once that it was looping (loop_detection.max_repeats: ${settings.max_repeats})`;
}

/** What the model sees for each call of the step that stopped the run: none of them ran. */
export function loopNotRunContent(description: string): string {
  return `Not run: loop detection stopped the run (${description}, repeated too many times in a row).`;
}
