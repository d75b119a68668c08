import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openAiReply, startFakeProviderServer, type FakeProviderServer } from './support/fake-provider-server';
import { eventually } from './support/test-env';
import { workerProcessFixture } from './support/worker-process-fixture';

/**
 * A worker process SIGKILLed after the provider answered (and billed) a model step, while a hook
 * of that step hangs: every call the loopback provider answered is counted in the run's usage.
 * When the step had kept its reply (the hang is in a before-tool hook), the new worker uses it and
 * the provider is not called again; when it had not (the hang is in an after-model hook, which
 * runs before the reply is kept), the new worker calls again and the lost call is counted too.
 */

const fixture = workerProcessFixture('spend-crash');
const TOOLS = 'test/support/spend-crash-tools.ts';
// $10 per million input tokens, $20 per million output: each call of 1,000 in / 500 out costs $0.02.
const pricing = { 'openai:gpt-4o-mini': { input: 10, output: 20 } };
const CALL_USD = 0.02;
let server: FakeProviderServer;

beforeAll(async () => {
  server = await startFakeProviderServer({
    reply: (body: { messages?: Array<{ role: string }> }) =>
      body.messages?.some((message) => message.role === 'tool')
        ? openAiReply({ text: 'all noted', usage: [1_000, 500] })
        : openAiReply({ toolCalls: [{ id: 'call-1', name: 'note', args: { text: 'hi' } }], usage: [1_000, 500] }),
  });
});

afterAll(async () => {
  await server?.close();
});

/** A run whose first worker hangs once in `hang`'s hook; killed once status shows the hook and the billed call; then a second worker. */
async function runKilledInHook(label: string, hang: 'HANG_BEFORE_TOOL' | 'HANG_AFTER_MODEL', hook: string) {
  const environment = {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: `${server.baseUrl}/v1`,
    AGENT_MODEL_STREAMING: 'off',
    [hang]: path.join(fixture.folder, `${label}.hung`),
  };
  const agents = fixture.freshAgents();
  const first = await fixture.startWorker(environment, { taskQueue: agents.taskQueue, toolsModule: TOOLS });
  const requestsBefore = server.requests.length;
  const run = await agents.startRun({
    config: { name: label, model: 'openai:gpt-4o-mini', tools: ['note'], pricing },
    task: 'Note hi',
    timeouts: { heartbeatMs: 2_000 },
  });
  // The step's heartbeat has reached the server: it names the hook and holds the billed call.
  const waiting = await eventually(async () => {
    const status = await run.status();
    return status.runningHooks?.some((running) => running.hook === hook) && status.uncountedSpend?.length ? status : undefined;
  }, 90_000);
  expect(waiting.uncountedSpend).toEqual([{ activityId: 'step-1.model', calls: 1, costUsd: CALL_USD, unpricedCalls: 0 }]);
  await first.kill('SIGKILL');
  await fixture.startWorker(environment, { taskQueue: agents.taskQueue, toolsModule: TOOLS });
  const result = await run.result();
  return { result, providerCalls: server.requests.length - requestsBefore };
}

describe('a worker SIGKILLed after the provider answered', () => {
  it('in a before-tool hook: the new worker uses the kept reply, the provider is called once for the step, and every call is counted', async () => {
    const { result, providerCalls } = await runKilledInHook('kept', 'HANG_BEFORE_TOOL', 'slow-check');
    expect(result.output).toBe('all noted');
    // Step 1 once (its reply reused after the kill), step 2 once.
    expect(providerCalls).toBe(2);
    expect(result.usage.costUsd).toBeCloseTo(providerCalls * CALL_USD, 9);
    expect(result.usage.inputTokens).toBe(providerCalls * 1_000);
    // The explicit allow of the new worker's hook is recorded.
    expect(result.toolResults[0]!.metadata.decided_by).toEqual([
      { kind: 'hook', hook: 'slow-check', action: 'allow', reason: null, modified: false },
    ]);
  });

  it('in an after-model hook: the new worker calls the provider again, and the lost call is counted with it', async () => {
    const { result, providerCalls } = await runKilledInHook('lost', 'HANG_AFTER_MODEL', 'slow-redact');
    expect(result.output).toBe('all noted');
    // Step 1 twice (the first answer was lost with its worker), step 2 once.
    expect(providerCalls).toBe(3);
    expect(result.usage.costUsd).toBeCloseTo(providerCalls * CALL_USD, 9);
    expect(result.usage.outputTokens).toBe(providerCalls * 500);
  });
});
