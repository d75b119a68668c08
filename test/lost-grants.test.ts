// Lost grants: a provider limiter or a slots workflow terminated while a run waits; the run asks again and goes on once a new one answers.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AiSdkProvider } from '../src/models/ai-sdk-provider';
import type { RunHandle } from '../src/client/run-handle';
import { agentCapKey, concurrencySlotsWorkflowId, slotsStatusQuery } from '../src/protocol/concurrency-slots';
import { limiterStatusQuery, limiterWorkflowId, limitKey } from '../src/protocol/provider-limits';
import { openAiReply, startFakeProviderServer, type FakeProviderServer, type ScriptedResponse } from './support/fake-provider-server';
import { createTestEnvironment, eventually, terminateLeftovers, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const MODEL = 'openai:gpt-4o-mini';
/** The worker's wait before a run asks again (5 minutes unless DURABLE_AGENTS_REASK_MS says otherwise). */
const REASK_MS = 3_000;
let server: FakeProviderServer;
let env: TestEnvironment;
let reaskBefore: string | undefined;

beforeAll(async () => {
  reaskBefore = process.env.DURABLE_AGENTS_REASK_MS;
  process.env.DURABLE_AGENTS_REASK_MS = String(REASK_MS);
  server = await startFakeProviderServer({
    reply: (body: { messages?: Array<{ content: unknown }> }): ScriptedResponse => ({
      ...openAiReply({ text: 'done' }),
      ...(JSON.stringify(body.messages ?? []).includes('hang') ? { delayMs: 120_000 } : {}),
    }),
  });
  env = await createTestEnvironment({
    tools: createTestTools().tools,
    providers: {
      openai: new AiSdkProvider('openai', { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${server.baseUrl}/v1`, AGENT_MODEL_STREAMING: 'off' }),
    },
  });
});

afterAll(async () => {
  await terminateLeftovers(env?.agents, [
    limiterWorkflowId(limitKey(env?.taskQueue ?? '', MODEL)),
    concurrencySlotsWorkflowId(env?.taskQueue ?? '', agentCapKey('lost-slot')),
  ]);
  await env?.close();
  await server?.close();
  if (reaskBefore === undefined) delete process.env.DURABLE_AGENTS_REASK_MS;
  else process.env.DURABLE_AGENTS_REASK_MS = reaskBefore;
});

/** The activity ids a run scheduled, in order. */
async function activityIds(run: RunHandle): Promise<string[]> {
  const history = await run.workflow.fetchHistory();
  return (history.events ?? []).flatMap((event) =>
    event.activityTaskScheduledEventAttributes?.activityId ? [event.activityTaskScheduledEventAttributes.activityId] : [],
  );
}

describe('a run whose grant was lost', () => {
  it('asks a terminated provider limiter again and gets its call from the new one', async () => {
    // One call a minute: the second run waits about a minute behind the first...
    const config = { name: 'lost-limit', model: MODEL, provider_limits: { [MODEL]: { requests_per_minute: 1 } } };
    const limiter = env.agents.temporal.workflow.getHandle(limiterWorkflowId(limitKey(env.taskQueue, MODEL)));
    const first = await env.agents.startRun({ config, task: 'first' });
    expect((await first.result()).output).toBe('done');
    const started = Date.now();
    const second = await env.agents.startRun({ config, task: 'second' });
    await eventually(async () => ((await limiter.query(limiterStatusQuery).catch(() => null))?.queued === 1 ? true : undefined));
    // ...until its limiter is terminated by hand, losing its queue: the run asks again and the new
    // limiter (a fresh schedule) lets it go at once.
    await limiter.terminate('test: a limiter lost with a run in its queue');
    expect((await second.result()).output).toBe('done');
    const tookMs = Date.now() - started;
    console.log(
      `lost grants: the limiter's queued run finished ${tookMs} ms after it started (re-ask after ${REASK_MS} ms; a minute without the terminate)`,
    );
    expect(tookMs).toBeLessThan(30_000);
    expect(await activityIds(second)).toEqual(['step-1.model.limit', 'step-1.model.limit-2', 'step-1.model']);
  }, 60_000);

  it('asks a terminated slots workflow again and gets a slot from the new one', async () => {
    const config = { name: 'lost-slot', model: MODEL, max_concurrent_runs: 1 };
    const slots = env.agents.temporal.workflow.getHandle(concurrencySlotsWorkflowId(env.taskQueue, agentCapKey('lost-slot')));
    const holder = await env.agents.startRun({ config, task: 'holder hang' });
    await eventually(() => server.requests.some((request) => JSON.stringify(request.body).includes('holder hang')) || undefined, 30_000);
    const waiting = await env.agents.startRun({ config, task: 'waiting' });
    await eventually(async () => ((await slots.query(slotsStatusQuery).catch(() => null))?.queued === 1 ? true : undefined));
    // The new slots workflow does not know the holder: the cap is over by one until it ends (docs).
    await slots.terminate('test: a slots workflow lost with a run in its queue');
    expect((await waiting.result()).output).toBe('done');
    expect(await activityIds(waiting)).toEqual(['concurrency-slot-1', 'concurrency-slot-1.ask-2', 'step-1.model']);
    await holder.workflow.terminate('test over');
  }, 60_000);
});
