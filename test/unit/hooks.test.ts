import { describe, expect, it } from '@jest/globals';
import { defineHook, type AnyHook } from '../../src/hooks/define-hook';
import type { BeforeToolEvent } from '../../src/hooks/hook-events';
import { HookRunner } from '../../src/hooks/hook-runner';
import { fillInstructionsTemplate, templateVariablesOf, unknownTemplateVariables } from '../../src/config/instructions-template';
import { ErrorCode } from '../../src/protocol/errors';
import type { HookContext } from '../../src/protocol/hook-types';
import { applyToolDecision } from '../../src/workflows/rules/tool-decisions';

/** Hook rules without a server: which hooks apply, the order of a chain, decisions, failures, templates. */

const base = { agent: 'refunds', workflowId: 'w', runId: 'r', attempt: 1 };
const failing: HookContext = { agent: 'refunds', onError: 'fail' };
const ignoring: HookContext = { agent: 'refunds', onError: 'ignore' };
const refundCall = (amount: number): BeforeToolEvent => ({
  ...base,
  step: 1,
  call: { id: 'c1', name: 'refund', args: { amount } },
  injectedArgs: {},
});

function runner(...hooks: AnyHook[]): HookRunner {
  return new HookRunner(hooks);
}

describe('defineHook and the runner', () => {
  it('refuses a hook without a name, with an unknown point, or without a function, and two hooks of one name', () => {
    const codeOf = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        return (error as { code?: string }).code;
      }
      return 'no error';
    };
    expect(codeOf(() => defineHook({ name: ' ', point: 'run-start', run: () => undefined }))).toBe(ErrorCode.hookInvalid);
    expect(codeOf(() => defineHook({ name: 'x', point: 'before-lunch' as 'run-start', run: () => undefined }))).toBe(ErrorCode.hookInvalid);
    expect(codeOf(() => defineHook({ name: 'x', point: 'run-start', run: 'no' as unknown as () => undefined }))).toBe(ErrorCode.hookInvalid);
    const twice = defineHook({ name: 'audit', point: 'run-start', run: () => undefined });
    expect(codeOf(() => runner(twice, defineHook({ name: 'audit', point: 'run-end', run: () => undefined })))).toBe(ErrorCode.hookInvalid);
  });

  it('applies hooks to every agent or to the agents they name', () => {
    const hooks = runner(
      defineHook({ name: 'everyone', point: 'run-start', run: () => undefined }),
      defineHook({ name: 'refunds only', point: 'before-tool', agents: ['refunds'], run: () => undefined }),
    );
    expect(hooks.points('refunds').sort()).toEqual(['before-tool', 'run-start']);
    expect(hooks.points('support')).toEqual(['run-start']);
    expect(hooks.has('before-tool', 'support')).toBe(false);
  });

  it('runs a chain in order, each hook seeing the text the one before it left', async () => {
    const seen: string[] = [];
    const hooks = runner(
      defineHook({ name: 'emails', point: 'after-model', run: ({ text }) => ({ text: text.replace(/\S+@\S+/g, '[email]') }) }),
      defineHook({ name: 'observer', point: 'after-model', run: ({ text }) => void seen.push(text) }),
      defineHook({ name: 'upper', point: 'after-model', run: ({ text }) => ({ text: text.toUpperCase() }) }),
    );
    const outcome = await hooks.changeText(failing, {
      ...base,
      step: 1,
      purpose: 'executor',
      model: 'm',
      text: 'write to ann@example.com',
      toolCalls: [],
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    expect(outcome).toEqual({ text: 'WRITE TO [EMAIL]', ignored: [], failed: null });
    expect(seen).toEqual(['write to [email]']);
  });

  it('under hook_errors: fail stops at a hook that throws and names it; under ignore reports it and skips its change', async () => {
    const hooks = runner(
      defineHook({
        name: 'broken',
        point: 'after-tool',
        run: () => {
          throw new Error('store down');
        },
      }),
      defineHook({ name: 'redact', point: 'after-tool', run: ({ result }) => ({ content: result.content.replace('secret', '***') }) }),
    );
    const event = { ...base, step: 1, call: { id: 'c1', name: 'lookup', args: {} }, result: { content: 'the secret', isError: false } };
    expect(await hooks.changeContent(failing, event)).toEqual({
      content: 'the secret',
      ignored: [],
      failed: { hook: 'broken', point: 'after-tool', message: 'store down' },
    });
    expect(await hooks.changeContent(ignoring, event)).toEqual({
      content: 'the ***',
      ignored: [{ hook: 'broken', point: 'after-tool', message: 'store down' }],
      failed: null,
    });
  });

  it('counts a result its point does not accept as the hook failing', async () => {
    const hooks = runner(defineHook({ name: 'sloppy', point: 'after-model', run: () => ({ text: 42 }) as unknown as { text: string } }));
    const outcome = await hooks.changeText(failing, {
      ...base,
      step: 1,
      purpose: 'executor',
      model: 'm',
      text: 'hi',
      toolCalls: [],
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    expect(outcome.failed?.hook).toBe('sloppy');
    expect(outcome.failed?.message).toMatch(/^returned a value its point does not accept: text:/);
  });
});

describe('before-tool decisions', () => {
  const limit = defineHook({
    name: 'refund-limit',
    point: 'before-tool',
    run: ({ call }) =>
      call.name === 'refund' && Number(call.args.amount) > 100 ? { action: 'require_approval' as const, reason: 'over 100' } : undefined,
  });

  it('records nothing when every hook lets the call through', async () => {
    expect(await runner(limit).decideToolCall(failing, refundCall(50))).toEqual({ decision: null, ignored: [], failed: null });
  });

  it('records an explicit allow with the hook that said it, unless a later hook modified the call', async () => {
    const allow = defineHook({ name: 'allow-small', point: 'before-tool', run: () => ({ action: 'allow' as const }) });
    expect((await runner(allow).decideToolCall(failing, refundCall(5))).decision).toEqual({ action: 'allow', hook: 'allow-small' });
    const cap = defineHook({
      name: 'cap',
      point: 'before-tool',
      run: ({ call }) => ({ action: 'modify' as const, args: { ...call.args, amount: 1 } }),
    });
    expect((await runner(allow, cap).decideToolCall(failing, refundCall(5))).decision).toEqual({ action: 'allow', hook: 'cap', args: { amount: 1 } });
  });

  it('keeps an approval requirement while later hooks may change the arguments, and a deny ends the chain', async () => {
    const cap = defineHook({
      name: 'cap',
      point: 'before-tool',
      run: ({ call }) => ({ action: 'modify' as const, args: { ...call.args, amount: Math.min(Number(call.args.amount), 500) } }),
    });
    const { decision } = await runner(limit, cap).decideToolCall(failing, refundCall(900));
    expect(decision).toEqual({ action: 'require_approval', hook: 'refund-limit', reason: 'over 100', args: { amount: 500 } });

    const after: string[] = [];
    const deny = defineHook({ name: 'no-refunds', point: 'before-tool', run: () => ({ action: 'deny' as const, reason: 'refunds are paused' }) });
    const never = defineHook({ name: 'never', point: 'before-tool', run: () => void after.push('ran') });
    expect((await runner(limit, deny, never).decideToolCall(failing, refundCall(900))).decision).toEqual({
      action: 'deny',
      hook: 'no-refunds',
      reason: 'refunds are paused',
    });
    expect(after).toEqual([]);
  });

  it('turns a hook that throws into a failed call under fail, and into nothing under ignore', async () => {
    const broken = defineHook({ name: 'policy-service', point: 'before-tool', run: () => Promise.reject(new Error('timeout')) });
    expect((await runner(broken).decideToolCall(failing, refundCall(5))).decision).toEqual({
      action: 'fail',
      hook: 'policy-service',
      reason: "hook 'policy-service' (before-tool) failed: timeout",
    });
    expect(await runner(broken).decideToolCall(ignoring, refundCall(5))).toEqual({
      decision: null,
      ignored: [{ hook: 'policy-service', point: 'before-tool', message: 'timeout' }],
      failed: null,
    });
  });

  it('fails a hook that does not return within its time limit, as if it threw, and tells the watcher while it runs', async () => {
    const hung = defineHook({ name: 'hung', point: 'before-tool', timeoutMs: 50, run: () => new Promise<undefined>(() => undefined) });
    const seen: Array<string | null> = [];
    const watched = { ...failing, watch: (running: { hook: string } | null) => void seen.push(running?.hook ?? null) };
    const outcome = await runner(hung).decideToolCall(watched, refundCall(5));
    expect(outcome.decision).toEqual({
      action: 'fail',
      hook: 'hung',
      reason: "hook 'hung' (before-tool) failed: did not return within 50 ms (its timeoutMs)",
    });
    expect(seen).toEqual(['hung', null]);
    // The worker's limit applies to a hook without its own, and the activity's deadline cuts both.
    const slow = defineHook({ name: 'slow', point: 'before-tool', run: () => new Promise<undefined>(() => undefined) });
    const ignored = await new HookRunner([slow], { timeoutMs: 40 }).decideToolCall(ignoring, refundCall(5));
    expect(ignored.ignored).toEqual([{ hook: 'slow', point: 'before-tool', message: "did not return within 40 ms (the worker's hookTimeoutMs)" }]);
    const cut = await runner(slow).decideToolCall({ ...ignoring, deadlineMs: Date.now() + 30 }, refundCall(5));
    expect(cut.ignored[0]!.message).toMatch(/^did not return within \d+ ms \(what was left of its activity's start-to-close timeout\)$/);
  });

  it('refuses a time limit that is not a positive number', () => {
    expect(() => defineHook({ name: 'x', point: 'run-start', timeoutMs: 0, run: () => undefined })).toThrow(/timeoutMs must be a positive number/);
    expect(() => new HookRunner([], { timeoutMs: -1 })).toThrow(/hookTimeoutMs must be a positive number/);
  });

  it('applies a decision in the workflow: a denied call gets an error result, a changed one keeps the injected args', () => {
    const call = { id: 'c1', name: 'refund', args: { amount: 900, request_id: 'ui-7' } };
    const denied = applyToolDecision(call, { action: 'deny', hook: 'no-refunds', reason: 'paused' }, 3, ['request_id'], 1_000);
    expect(denied.kind === 'refused' && denied.result).toMatchObject({
      isError: true,
      errorCode: ErrorCode.toolDenied,
      content: "Error: the call to 'refund' was denied by hook 'no-refunds': paused. The tool did not run.",
      metadata: {
        status: 'denied',
        injected_args: { request_id: 'ui-7' },
        decided_by: [{ kind: 'hook', hook: 'no-refunds', action: 'deny', reason: 'paused', modified: false }],
      },
    });
    const changed = applyToolDecision(
      call,
      { action: 'require_approval', hook: 'limit', reason: 'over 100', args: { amount: 500 } },
      3,
      ['request_id'],
      1_000,
    );
    expect(changed).toEqual({
      kind: 'run',
      call: { id: 'c1', name: 'refund', args: { amount: 500, request_id: 'ui-7' } },
      decider: { kind: 'hook', hook: 'limit', action: 'require_approval', reason: 'over 100', modified: true },
      requiresApproval: true,
    });
  });
});

describe('instructions templates', () => {
  it('fills the known variables from the workflow clock and leaves other text alone', () => {
    const text = 'You are {{agent_name}} for {{ resource_id }}. Today is {{date}}. {{thread_id}}|';
    expect(fillInstructionsTemplate(text, { agentName: 'support', startedAt: Date.UTC(2026, 10, 24, 23, 59), resourceId: 'user:7' })).toBe(
      'You are support for user:7. Today is 2026-11-24. |',
    );
    expect(templateVariablesOf(text)).toEqual(['agent_name', 'resource_id', 'date', 'thread_id']);
    expect(unknownTemplateVariables('Hello {{name}} and {{date}}, not {{tool:x}} or {single}')).toEqual(['name']);
  });
});
