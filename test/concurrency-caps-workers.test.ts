// Concurrency caps across worker processes: a worker SIGKILLed while runs hold slots; the runs go on on the other worker, the slots stay consistent.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunHandle } from '../src/client/run-handle';
import { agentCapKey, concurrencySlotsWorkflowId, slotsStatusQuery } from '../src/protocol/concurrency-slots';
import { openAiReply, startFakeProviderServer, type FakeProviderServer } from './support/fake-provider-server';
import { eventually, terminateLeftovers } from './support/test-env';
import { workerProcessFixture } from './support/worker-process-fixture';

const MODEL = 'openai:gpt-4o-mini';
const CAP = 2;
const RUNS = 8;
const fixture = workerProcessFixture('caps-workers');
let server: FakeProviderServer;

beforeAll(async () => {
  server = await startFakeProviderServer({ reply: () => ({ ...openAiReply({ text: 'done' }), delayMs: 2_000 }) });
});

afterAll(async () => {
  await terminateLeftovers(fixture.agents, [concurrencySlotsWorkflowId(fixture.agents.taskQueue, agentCapKey('capped-workers'))]);
  await server?.close();
});

/** The identity of the worker running the run's model step now (Temporal's `pid@host`), if one does. */
async function modelStepWorker(run: RunHandle): Promise<string | undefined> {
  const description = await run.workflow.describe();
  return (
    description.raw.pendingActivities?.find((activity) => activity.activityType?.name === 'modelStep' && activity.lastWorkerIdentity)
      ?.lastWorkerIdentity ?? undefined
  );
}

describe('concurrency caps across workers', () => {
  it('keeps the slots consistent when a worker is SIGKILLed while runs hold them: every run completes, never more than the cap at once', async () => {
    const environment = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${server.baseUrl}/v1`, AGENT_MODEL_STREAMING: 'off' };
    const workers = await Promise.all([fixture.startWorker(environment), fixture.startWorker(environment)]);
    const agents = fixture.agents;
    const config = { name: 'capped-workers', model: MODEL, max_concurrent_runs: CAP };
    const runs = await Promise.all(Array.from({ length: RUNS }, (_, index) => agents.startRun({ config, task: `run ${index}` })));
    // Two runs hold the slots and are in their model calls: kill the worker running the first of them.
    const [identity] = await eventually(async () => {
      if (server.inFlight.now < CAP) return undefined;
      const running = (await Promise.all(runs.map(modelStepWorker))).filter((worker): worker is string => worker !== undefined);
      return running.length > 0 ? running : undefined;
    }, 60_000);
    const victim = workers.find((worker) => identity!.startsWith(`${worker.child.pid}@`));
    expect(victim).toBeDefined();
    await victim!.kill('SIGKILL');
    const killedAt = Date.now();
    const results = await Promise.all(runs.map((run) => run.result()));
    expect(results.map((result) => result.output)).toEqual(Array(RUNS).fill('done'));
    console.log(
      `concurrency across workers: ${RUNS} runs done ${Date.now() - killedAt} ms after the SIGKILL, at most ${server.inFlight.max} calls at once, ${server.requests.length} calls`,
    );
    // The killed worker's calls were dropped (its connections closed) before they were tried again.
    expect(server.inFlight.max).toBeLessThanOrEqual(CAP);
    const slots = agents.temporal.workflow.getHandle(concurrencySlotsWorkflowId(agents.taskQueue, agentCapKey('capped-workers')));
    const status = await eventually(async () => {
      const current = await slots.query(slotsStatusQuery);
      return current.holders.length === 0 ? current : undefined;
    });
    expect(status).toMatchObject({ queued: 0, totals: { granted: RUNS, released: RUNS, holdersGone: 0 } });
  }, 150_000);
});
