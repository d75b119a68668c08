import { describe, expect, it } from '@jest/globals';
import { parseAgentConfig } from '../../src/config/agent-config';
import { AgentConfigError } from '../../src/protocol/errors';
import type { CallFingerprint, LoopWatch } from '../../src/protocol/loop-watch';
import type { ToolCall } from '../../src/protocol/messages';
import {
  callFingerprint,
  canonicalArguments,
  describeLoop,
  emptyLoopWatch,
  findLoop,
  loopDetectionSettings,
  loopNudgeMessage,
  loopStopDetail,
  loopVerdict,
  type LoopDetectionSettings,
} from '../../src/workflows/rules/loop-detection';

/** Loop detection's rule, without a server: which call sequences are loops, and what the model and the result say. */

const settings: LoopDetectionSettings = { max_repeats: 3, max_cycle_length: 3 };
let callNumber = 0;
const call = (name: string, args: Record<string, unknown> = {}): ToolCall => ({ id: `c${++callNumber}`, name, args });
const fingerprints = (...calls: ToolCall[]): CallFingerprint[] => calls.map((each) => callFingerprint(each, ['request_id']));

/** Feeds steps of calls through the watch, as the run does, and returns each step's finding. */
function feed(steps: ToolCall[][], watch: LoopWatch = emptyLoopWatch(), options = settings) {
  return steps.map((calls) => {
    const { finding, recent } = findLoop(watch, fingerprints(...calls), options);
    watch.recent = recent;
    return finding;
  });
}

describe('which calls are the same call', () => {
  it('compares the tool name and the canonical JSON of the executable arguments: key order does not matter', () => {
    const a = call('search', { query: 'tokyo', filters: { from: 2020, to: 2024 } });
    const b = call('search', { filters: { to: 2024, from: 2020 }, query: 'tokyo' });
    expect(canonicalArguments(a, [])).toBe('{"filters":{"from":2020,"to":2024},"query":"tokyo"}');
    expect(callFingerprint(a, [])).toEqual(callFingerprint(b, []));
  });

  it('leaves injected arguments out: calls that differ only in them are the same call', () => {
    const first = call('search', { query: 'tokyo', request_id: 'ui-1' });
    const second = call('search', { query: 'tokyo', request_id: 'ui-2' });
    expect(fingerprints(first)).toEqual(fingerprints(second));
  });

  it('tells apart other arguments, other values, array order, and another tool with the same arguments', () => {
    const base = fingerprints(call('search', { query: 'tokyo', tags: ['a', 'b'] }))[0];
    for (const other of [
      call('search', { query: 'osaka', tags: ['a', 'b'] }),
      call('search', { query: 'tokyo', tags: ['b', 'a'] }),
      call('search', { query: 'tokyo' }),
      call('lookup', { query: 'tokyo', tags: ['a', 'b'] }),
    ]) {
      expect(fingerprints(other)[0]).not.toEqual(base);
    }
  });
});

describe('what is a loop', () => {
  it('finds the same call made more than max_repeats times in a row, at the call that went one over', () => {
    const again = () => call('get_weather', { city: 'Paris' });
    const findings = feed([[again()], [again()], [again()], [again()]]);
    expect(findings.slice(0, 3)).toEqual([null, null, null]);
    expect(findings[3]).toMatchObject({ callIndex: 0, cycle: [{ tool: 'get_weather' }] });
  });

  it('counts parallel calls of one step in the order the model listed them', () => {
    const again = () => call('ping', { host: 'a' });
    const [finding] = feed([[again(), call('other'), again(), again(), again(), again()]]);
    expect(finding).toMatchObject({ callIndex: 5, cycle: [{ tool: 'ping' }] });
  });

  it('finds a cycle of calls repeated in turn, naming its calls oldest first', () => {
    const steps = Array.from({ length: 4 }, () => [call('search', { q: 'x' }), call('open_page', { url: 'u' })]);
    const findings = feed(steps);
    expect(findings.slice(0, 3)).toEqual([null, null, null]);
    expect(findings[3]?.cycle.map((entry) => entry.tool)).toEqual(['search', 'open_page']);
  });

  it('finds a cycle spread over steps, whichever call it starts from', () => {
    const sequence = ['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c'].map((name) => [call(name)]);
    const findings = feed([[call('start')], ...sequence]);
    expect(findings.findIndex((finding) => finding !== null)).toBe(12);
    expect(findings[12]?.cycle.map((entry) => entry.tool)).toEqual(['a', 'b', 'c']);
  });

  it('ignores cycles longer than max_cycle_length', () => {
    const sequence = Array.from({ length: 5 }, () => ['a', 'b', 'c', 'd'].map((name) => call(name))).flat();
    expect(feed([sequence])).toEqual([null]);
    expect(feed([sequence], emptyLoopWatch(), { max_repeats: 3, max_cycle_length: 4 })[0]?.cycle).toHaveLength(4);
  });

  it('does not count repeats that a different call interrupted, nor the same tool with new arguments', () => {
    const polls = Array.from({ length: 8 }, (_, index) => [call('check_job', { job: 7, attempt: index })]);
    const interrupted = [[call('x')], [call('x')], [call('x')], [call('y')], [call('x')], [call('x')], [call('x')]];
    expect(feed(polls).every((finding) => finding === null)).toBe(true);
    expect(feed(interrupted).every((finding) => finding === null)).toBe(true);
  });

  it('remembers only the calls the rule looks at, and finds a loop across what it remembered', () => {
    const watch = emptyLoopWatch();
    feed(
      Array.from({ length: 30 }, (_, index) => [call('step', { index })]),
      watch,
    );
    expect(watch.recent).toHaveLength((settings.max_repeats + 1) * settings.max_cycle_length);
    const carried: LoopWatch = JSON.parse(JSON.stringify({ ...watch, recent: fingerprints(call('z'), call('z'), call('z')) }));
    expect(feed([[call('z')]], carried)[0]).toMatchObject({ callIndex: 0, cycle: [{ tool: 'z' }] });
  });
});

describe('what loop detection does about a loop', () => {
  it('nudges the first time and stops after that; no loop, no action', () => {
    const finding = { cycle: fingerprints(call('a')), callIndex: 0 };
    expect(loopVerdict(emptyLoopWatch(), null)).toEqual({ kind: 'none' });
    expect(loopVerdict(emptyLoopWatch(), finding)).toEqual({ kind: 'nudge', finding });
    expect(loopVerdict({ recent: [], nudged: true }, finding)).toEqual({ kind: 'stop', finding });
  });

  it('names the call and its arguments (injected ones left out) in the nudge and the stop detail', () => {
    const looping = call('get_weather', { city: 'Paris', request_id: 'ui-1' });
    const finding = { cycle: fingerprints(looping), callIndex: 0 };
    const description = describeLoop(finding, looping, ['request_id']);
    expect(description).toBe(`'get_weather' with the same arguments ({"city":"Paris"})`);
    expect(loopNudgeMessage(description, settings)).toEqual({
      role: 'user',
      content: expect.stringContaining(`called 'get_weather' with the same arguments ({"city":"Paris"}) 4 times in a row (this agent allows 3)`),
    });
    expect(loopStopDetail(description, settings)).toContain('loop_detection.max_repeats: 3');
  });

  it('cuts long arguments in the description, and names a cycle by its tools', () => {
    const long = call('write', { text: 'x'.repeat(1_000) });
    expect(describeLoop({ cycle: fingerprints(long), callIndex: 0 }, long, []).length).toBeLessThan(260);
    const cycle = fingerprints(call('search'), call('open_page'));
    expect(describeLoop({ cycle, callIndex: 1 }, call('open_page'), [])).toBe('the same 2 calls in turn (search → open_page)');
  });
});

describe('loop_detection in the agent config', () => {
  it('is on by default with a generous threshold, and false turns it off', () => {
    expect(parseAgentConfig({ name: 'bot' }).loop_detection).toEqual({ max_repeats: 10, max_cycle_length: 3 });
    expect(loopDetectionSettings(parseAgentConfig({ name: 'bot', loop_detection: false }))).toBeNull();
    expect(parseAgentConfig({ name: 'bot', loop_detection: { max_repeats: 4 } }).loop_detection).toEqual({ max_repeats: 4, max_cycle_length: 3 });
  });

  it('refuses a bad setting with an AgentConfigError naming the field', () => {
    const problemsOf = (loopDetection: unknown) => {
      try {
        parseAgentConfig({ name: 'bot', loop_detection: loopDetection });
        return [];
      } catch (error) {
        expect(error).toBeInstanceOf(AgentConfigError);
        return (error as AgentConfigError).problems;
      }
    };
    expect(problemsOf({ max_repeats: 0 })).toEqual([expect.stringMatching(/^loop_detection\.max_repeats: /)]);
    expect(problemsOf({ max_cycle_length: 9 })).toEqual([expect.stringMatching(/^loop_detection\.max_cycle_length: /)]);
    expect(problemsOf({ max_repets: 3 })).toEqual(['loop_detection.max_repets: unknown field; did you mean max_repeats?']);
    expect(problemsOf(true)).toEqual(['loop_detection: must be false (off) or { max_repeats, max_cycle_length }']);
  });
});
