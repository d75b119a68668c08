// Provider limits in one worker: a run that waits for its turn, a 429 that pauses every run, the limiter's own continue-as-new; the histories of each path.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AiSdkProvider } from '../src/models/ai-sdk-provider';
import type { RunHandle } from '../src/client/run-handle';
import {
  limiterStatusQuery,
  limiterWorkflowId,
  limitKey,
  limitRequestSignal,
  ProviderLimitWireName,
  type ProviderLimiterInput,
} from '../src/protocol/provider-limits';
import { openAiReply, startFakeProviderServer, type FakeProviderServer } from './support/fake-provider-server';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, eventually, terminateLeftovers, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';
import { CATCH_UP_MS } from '../src/workflows/limits/limiter-schedule';

const MODEL = 'openai:gpt-4o-mini';
let server: FakeProviderServer;
let env: TestEnvironment;
/** When the instructions provider's own (pretend) model call went. */
const providerCalls: number[] = [];

beforeAll(async () => {
  server = await startFakeProviderServer();
  // Three bulk reads fill a 500-token budget: the fourth step compacts first.
  const compacting = {
    replies: [...Array.from({ length: 3 }, () => ({ toolCalls: [{ name: 'bulk', args: { words: 150 } }] })), { text: 'read it all' }],
    compaction: Array.from({ length: 4 }, (_, index) => ({ text: `Earlier: bulk read ${index + 1}.` })),
  };
  env = await createTestEnvironment({
    tools: createTestTools().tools,
    scripts: { 'limited-compacting': compacting },
    instructionsProviders: {
      'limited-prompt': ({ withinProviderLimit }) =>
        withinProviderLimit(MODEL, async () => {
          providerCalls.push(Date.now());
          return 'You answer in one word.';
        }),
    },
    providers: {
      openai: new AiSdkProvider('openai', { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${server.baseUrl}/v1`, AGENT_MODEL_STREAMING: 'off' }),
    },
  });
});

afterAll(async () => {
  await terminateLeftovers(env?.agents, [limiterWorkflowId(limitKey(env?.taskQueue ?? '', MODEL))]);
  await env?.close();
  await server?.close();
});

const limiter = () => env.agents.temporal.workflow.getHandle(limiterWorkflowId(limitKey(env.taskQueue, MODEL)));

describe('a run under a provider limit', () => {
  it('waits for its turn on a durable timer, shows it in status and the current details, and reports its usage', async () => {
    // 10 requests a minute: the second call of the run waits 6 s after the first.
    const config = {
      name: 'paced',
      model: MODEL,
      tools: ['add'],
      provider_limits: { [MODEL]: { requests_per_minute: 10, tokens_per_minute: 100_000 } },
    };
    server.respond(
      openAiReply({ toolCalls: [{ id: 'call_1', name: 'add', args: { a: 1, b: 2 } }], usage: [120, 10] }),
      openAiReply({ text: 'Three.', usage: [150, 5] }),
    );
    const run = await env.agents.startRun({ config, task: 'Add 1 and 2', priority: { priorityKey: 2, fairnessKey: 'tenant-a' } });
    // The second call waits about 3 s: first queued at the limiter, then (within a second of its time) on a timer.
    const waiting = await eventually(async () => {
      const [status, metadata] = await Promise.all([run.status(), run.workflow.query<{ currentDetails: string }>('__temporal_workflow_metadata')]);
      return status.phase === 'provider_limit' && status.step === 2 && metadata.currentDetails.includes(`awaiting provider limit of ${MODEL}`)
        ? status
        : undefined;
    }, 30_000);
    expect(waiting.providerLimitWait?.model).toBe(MODEL);
    expect(waiting.providerLimitWait?.sinceMs).toBeGreaterThan(0);
    expect((await run.result()).output).toBe('Three.');
    // The limiter paced the grants 6 s apart (the calls' arrivals add each call's own latency).
    const history = await run.workflow.fetchHistory();
    const grants = (history.events ?? [])
      .filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === ProviderLimitWireName.grantSignal)
      .map(
        (event) =>
          JSON.parse(Buffer.from(event.workflowExecutionSignaledEventAttributes!.input!.payloads![0]!.data!).toString()) as { notBeforeMs: number },
      );
    expect(grants).toHaveLength(2);
    // (less the catch-up allowed after idle time: the first call found the schedule idle).
    expect(grants[1]!.notBeforeMs - grants[0]!.notBeforeMs).toBeGreaterThanOrEqual(6_000 - CATCH_UP_MS);
    // The usage report is a signal the run sent as it finished: the limiter may take a moment.
    const status = await eventually(async () => {
      const current = await limiter().query(limiterStatusQuery);
      return current.outstanding === 0 ? current : undefined;
    });
    expect(status.totals.granted).toBeGreaterThanOrEqual(2);
    // The estimate (prompt + 1,024 output tokens) was corrected by the real usage (285 tokens).
    expect(status.totals.correctedTokens).toBeLessThan(0);
    await recordHistory('provider-limit-wait', run);
  });

  it('pauses every run on the key for the retry-after of one 429, and retries the call without using a try', async () => {
    const config = { name: 'refused', model: MODEL, max_retries: 1, provider_limits: { [MODEL]: { requests_per_minute: 6_000 } } };
    server.respond(
      { status: 429, body: { error: { message: 'Rate limit reached for requests' } }, headers: { 'retry-after-ms': '1500' } },
      openAiReply({ text: 'first' }),
      openAiReply({ text: 'second' }),
    );
    const before = server.requests.length;
    const refused = await env.agents.startRun({ config, task: 'One' });
    await eventually(async () => ((await limiter().query(limiterStatusQuery)).totals.pauses > 0 ? true : undefined));
    const other = await env.agents.startRun({ config, task: 'Two' });
    const results = await Promise.all([refused.result(), other.result()]);
    expect(results.map((result) => result.output).sort()).toEqual(['first', 'second']);
    const arrivals = server.requests.slice(before).map((request) => request.at);
    expect(arrivals).toHaveLength(3);
    // Neither the refused call's retry nor the other run's call went before the retry-after ended.
    expect(Math.min(arrivals[1]!, arrivals[2]!) - arrivals[0]!).toBeGreaterThanOrEqual(1_400);
    await recordHistory('provider-limit-429', refused);
  });

  it("sends compaction's summary call through the limiter of the agent's model, as a model step", async () => {
    const model = 'scripted:limited-compacting';
    const config = {
      name: 'compacting',
      model,
      tools: ['bulk'],
      budget_awareness: 'limit:25',
      context_window: 2000,
      loop_detection: false as const,
      provider_limits: { [model]: { requests_per_minute: 6_000, tokens_per_minute: 1_000_000 } },
    };
    const run = await env.agents.startRun({ config, task: 'Read a lot' });
    expect((await run.result()).output).toBe('read it all');
    const history = await run.workflow.fetchHistory();
    const activityIds = (history.events ?? []).flatMap((event) =>
      event.activityTaskScheduledEventAttributes?.activityId ? [event.activityTaskScheduledEventAttributes.activityId] : [],
    );
    const compactions = activityIds.filter((id) => /^step-\d+\.compaction$/.test(id));
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    // Each compaction asked the limiter first, as every model step did.
    for (const compaction of compactions) expect(activityIds[activityIds.indexOf(compaction) - 1]).toBe(`${compaction}.limit`);
    const modelSteps = activityIds.filter((id) => /\.model(-after-compaction)?$/.test(id));
    const limiterOf = env.agents.temporal.workflow.getHandle(limiterWorkflowId(limitKey(env.taskQueue, model)));
    const status = await eventually(async () => {
      const current = await limiterOf.query(limiterStatusQuery);
      return current.outstanding === 0 ? current : undefined;
    });
    expect(status.totals.granted).toBe(modelSteps.length + compactions.length);
    await limiterOf.terminate('test over');
    await recordHistory('provider-limit-compaction', run);
  });

  it("lets an instructions provider's own model call wait for the same limiter as the run's model steps", async () => {
    // 6 requests a minute: the provider's call and the run's model step go 10 s apart.
    const config = {
      name: 'prompted',
      model: MODEL,
      instructions_provider: 'limited-prompt',
      provider_limits: { [MODEL]: { requests_per_minute: 6 } },
    };
    server.respond(openAiReply({ text: 'Yes.' }));
    const before = server.requests.length;
    const run = await env.agents.startRun({ config, task: 'Is it raining?' });
    expect((await run.result()).output).toBe('Yes.');
    const modelCallAt = server.requests[before]!.at;
    expect(providerCalls).toHaveLength(1);
    // The provider's call was granted first, the step one interval later (less the catch-up after idle time).
    expect(modelCallAt - providerCalls[0]!).toBeGreaterThanOrEqual(10_000 - CATCH_UP_MS);
    expect(server.requests[before]!.body.messages[0].content).toContain('You answer in one word.');
    await recordHistory('provider-limit-instructions', run);
    // The limiter answered the provider's request as an update: its history so far (it runs on).
    await recordHistory('provider-limiter-update', { workflowId: limiter().workflowId, workflow: limiter() } as unknown as RunHandle);
  }, 60_000);

  it('keeps its queue and schedule through continue-as-new', async () => {
    const key = limitKey(env.taskQueue, 'openai:gpt-4o');
    const handle = env.agents.temporal.workflow.getHandle(limiterWorkflowId(key));
    const input: ProviderLimiterInput = { key, historyEventLimit: 10, idleMs: 2_000 };
    // Requests from a run that does not exist: grants find no run, as for a run cancelled while it waited.
    let firstRunId: string | undefined;
    for (let index = 0; index < 8; index++) {
      const started = await env.agents.temporal.workflow.signalWithStart(ProviderLimitWireName.limiterWorkflow, {
        workflowId: limiterWorkflowId(key),
        taskQueue: env.taskQueue,
        args: [input],
        signal: limitRequestSignal,
        signalArgs: [
          {
            requestId: `gone-${index}`,
            workflowId: 'no-such-run',
            estimatedTokens: 10,
            priorityKey: 3,
            fairnessKey: '',
            limit: { requestsPerMinute: 600 },
          },
        ],
      });
      firstRunId ??= started.signaledRunId;
    }
    // Granted (the grants found no run), it completes after 2 idle seconds.
    const finalState = await handle.result();
    expect(finalState.totals.granted).toBe(8);
    expect(finalState.queue).toHaveLength(0);
    const firstExecution = await env.agents.temporal.workflow.getHandle(handle.workflowId, firstRunId).fetchHistory();
    expect(firstExecution.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    // The recorder walks the chain from the first execution (a RunHandle's workflow handle knows it).
    const chain = Object.assign(env.agents.temporal.workflow.getHandle(handle.workflowId, firstRunId), { firstExecutionRunId: firstRunId });
    await recordHistory('provider-limiter', { workflowId: handle.workflowId, workflow: chain } as unknown as RunHandle);
  });
});
