import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineHook } from '../src/hooks/define-hook';
import { AiSdkProvider } from '../src/models/ai-sdk-provider';
import type { RunEvent } from '../src/protocol/run-events';
import type { RunStatus } from '../src/protocol/run-types';
import { openAiReply, startFakeProviderServer, type FakeProviderServer } from './support/fake-provider-server';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * A before-tool hook that never returns, on the real dev server, with a loopback provider that
 * bills every call: the hook's time limit ends it (a hook failure under `hook_errors`), the
 * provider is called once for the step, its cost is counted and `cost_limit` applies, and
 * `status` names the hook (and the billed call not counted yet) while it runs.
 */

// $10 per million input tokens, $20 per million output: a call of 6,000 in / 3,000 out costs $0.12.
const pricing = { 'openai:gpt-4o-mini': { input: 10, output: 20 } };
const HOOK_LIMIT_MS = 4_000;
let server: FakeProviderServer;
let env: TestEnvironment;
const stillHanging: Array<() => void> = [];

beforeAll(async () => {
  server = await startFakeProviderServer({
    reply: (body: { messages?: Array<{ role: string }> }) =>
      body.messages?.some((message) => message.role === 'tool')
        ? openAiReply({ text: 'done', usage: [1_000, 500] })
        : openAiReply({ toolCalls: [{ id: 'call-1', name: 'echo', args: { text: 'hi' } }], usage: [6_000, 3_000] }),
  });
  const hung = defineHook({
    name: 'policy-service',
    point: 'before-tool',
    timeoutMs: HOOK_LIMIT_MS,
    // Never answers (a policy service that hangs); released after the test so nothing is left pending.
    run: () => new Promise<undefined>((resolve) => stillHanging.push(() => resolve(undefined))),
  });
  env = await createTestEnvironment({
    tools: createTestTools().tools,
    hooks: [hung],
    providers: {
      openai: new AiSdkProvider('openai', { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${server.baseUrl}/v1`, AGENT_MODEL_STREAMING: 'off' }),
    },
  });
});

afterAll(async () => {
  for (const release of stillHanging) release();
  await env?.close();
  await server?.close();
});

describe('a before-tool hook that never returns', () => {
  it('is ended by its time limit; the provider is called once, its cost counted, and cost_limit applies', async () => {
    const run = await env.agents.startRun({
      config: {
        name: 'guarded',
        model: 'openai:gpt-4o-mini',
        tools: ['echo'],
        pricing,
        cost_limit: 0.1,
        max_tokens: 1_000,
        // The hook's failure is reported in the step's result (a `fail` would only show once the call ran).
        hook_errors: 'ignore',
      },
      task: 'Echo hi',
      // A beat every 1.7 s or so: status sees the hook soon after it starts, and a busy machine does not time the step out.
      timeouts: { heartbeatMs: 5_000 },
    });
    const waiting = await eventually(async () => {
      const status = await run.status();
      return status.runningHooks?.length ? status : undefined;
    }, 60_000);
    expect(waiting.runningHooks).toEqual([
      expect.objectContaining({ hook: 'policy-service', point: 'before-tool', activityId: 'step-1.model', limitMs: HOOK_LIMIT_MS }),
    ]);
    // The provider answered and billed; the run has not counted it yet, and says so.
    expect(waiting.usage.costUsd ?? 0).toBe(0);
    expect(waiting.uncountedSpend).toEqual([{ activityId: 'step-1.model', calls: 1, costUsd: 0.12, unpricedCalls: 0 }]);

    const result = await run.result();
    expect(result.stopReason).toBe('cost_limit');
    expect(result.usage.costUsd).toBeCloseTo(0.12, 9);
    expect(server.requests).toHaveLength(1);
    const ended: RunStatus = await run.status();
    expect(ended.runningHooks).toBeUndefined();
    const events: RunEvent[] = [];
    for await (const event of run.events()) events.push(event);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'hook-failed',
        hook: 'policy-service',
        point: 'before-tool',
        outcome: 'ignored',
        message: `did not return within ${HOOK_LIMIT_MS} ms (its timeoutMs)`,
      }),
    );
  });
});
