// Model calls per minute against a provider's limit: runs with `provider_limits` side by side with the same runs without (today's behaviour), on a loopback provider that enforces the limit.
import { randomUUID } from 'node:crypto';
import { NativeConnection } from '@temporalio/worker';
import { AgentClient } from '../src/client/agent-client';
import { AiSdkProvider } from '../src/models/ai-sdk-provider';
import { limiterWorkflowId, limitKey } from '../src/protocol/provider-limits';
import { createAgentWorker } from '../src/worker/create-worker';
import { defaultModelRegistry } from '../src/worker/default-models';
import { openAiReply, startFakeProviderServer } from '../test/support/fake-provider-server';
import type { BenchStack } from './bench-stack';

const MODEL = 'openai:gpt-4o-mini';
/** The provider's limit: 200 requests in any 20 s (600 a minute); the agents declare 95% of it. */
const PROVIDER_LIMIT = { requests: 200, windowMs: 20_000 };
const PROVIDER_PER_MINUTE = (PROVIDER_LIMIT.requests * 60_000) / PROVIDER_LIMIT.windowMs;
const DECLARED_PER_MINUTE = Math.floor(PROVIDER_PER_MINUTE * 0.95);

interface SideFigures {
  runs: number;
  completed: number;
  failed: number;
  calls: number;
  refused: number;
  /** Answered calls per minute between the first and the last answered call. */
  perMinute: number;
  /** The same over the middle 80% of answered calls (while runs are queued: no start-up, no tail). */
  steadyPerMinute: number;
  wallMs: number;
}

/**
 * `runs` one-call runs started at once, first without a limit (every step calls as soon as it is
 * scheduled and retries a 429 on its own timer, up to max_retries 10) and then with
 * `provider_limits` at 95% of the provider's limit, on one worker of their own. Prints calls per
 * minute against the provider's limit, the share of 429s and the runs that failed, side by side.
 */
export async function measureProviderLimits(stack: BenchStack, runs: number): Promise<void> {
  const server = await startFakeProviderServer({ limit: PROVIDER_LIMIT, reply: () => openAiReply({ text: 'done' }) });
  const connection = await NativeConnection.connect({ address: stack.server.address });
  const temporal = stack.agents.temporal;
  const taskQueue = `bench-limits-${randomUUID()}`;
  const models = defaultModelRegistry().register(
    'openai',
    new AiSdkProvider('openai', { OPENAI_API_KEY: 'sk-bench', OPENAI_BASE_URL: `${server.baseUrl}/v1`, AGENT_MODEL_STREAMING: 'off' }),
  );
  const worker = await createAgentWorker({ connection, client: temporal, taskQueue, tools: [], models, telemetry: false });
  const running = worker.run();
  const agents = new AgentClient(temporal, { taskQueue, checkWorkerTools: false });
  try {
    const side = async (limited: boolean): Promise<SideFigures> => {
      const before = server.requests.length;
      const refusedBefore = server.rateLimited.length;
      const config = {
        name: limited ? 'limited' : 'unlimited',
        model: MODEL,
        max_retries: 10,
        ...(limited ? { provider_limits: { [MODEL]: { requests_per_minute: DECLARED_PER_MINUTE } } } : {}),
      };
      const started = Date.now();
      const handles = await Promise.all(Array.from({ length: runs }, (_, index) => agents.startRun({ config, task: `call ${index}` })));
      const outcomes = await Promise.all(
        handles.map((handle) =>
          handle.result().then(
            () => true,
            () => false,
          ),
        ),
      );
      const wallMs = Date.now() - started;
      const requests = server.requests.slice(before);
      const refusedAt = new Set(server.rateLimited.slice(refusedBefore));
      const answered = requests.filter((request) => !refusedAt.has(request)).map((request) => request.at);
      const spanMs = Math.max(1, Math.max(...answered) - Math.min(...answered));
      const sorted = [...answered].sort((a, b) => a - b);
      const [from, to] = [Math.floor(sorted.length * 0.1), Math.ceil(sorted.length * 0.9) - 1];
      return {
        runs,
        completed: outcomes.filter(Boolean).length,
        failed: outcomes.filter((ok) => !ok).length,
        calls: requests.length,
        refused: refusedAt.size,
        perMinute: ((answered.length - 1) * 60_000) / spanMs,
        steadyPerMinute: ((to - from) * 60_000) / Math.max(1, sorted[to]! - sorted[from]!),
        wallMs,
      };
    };
    const without = await side(false);
    // The provider's window forgets the first side's calls before the second starts.
    await new Promise((resolve) => setTimeout(resolve, PROVIDER_LIMIT.windowMs));
    const withLimit = await side(true);
    const line = (name: string, figures: SideFigures) =>
      `  ${name}: ${figures.perMinute.toFixed(0)} calls/min first to last (${((figures.perMinute / PROVIDER_PER_MINUTE) * 100).toFixed(1)}% of the limit), ` +
      `${figures.steadyPerMinute.toFixed(0)} over the middle 80% (${((figures.steadyPerMinute / PROVIDER_PER_MINUTE) * 100).toFixed(1)}%), ` +
      `${figures.refused} of ${figures.calls} calls refused 429 (${((figures.refused / figures.calls) * 100).toFixed(1)}%), ` +
      `${figures.completed} of ${figures.runs} runs completed, ${figures.failed} failed, ${(figures.wallMs / 1000).toFixed(1)} s`;
    console.log(
      `Provider limits (${runs} one-call runs at once; provider: ${PROVIDER_LIMIT.requests} requests in any ${PROVIDER_LIMIT.windowMs / 1000} s = ${PROVIDER_PER_MINUTE}/min; limiter declared ${DECLARED_PER_MINUTE}/min):`,
    );
    console.log(line('no limiter  ', without));
    console.log(line('with limiter', withLimit));
  } finally {
    await temporal.workflow
      .getHandle(limiterWorkflowId(limitKey(taskQueue, MODEL)))
      .terminate('bench over')
      .catch(() => undefined);
    worker.shutdown();
    await running;
    await connection.close();
    await server.close();
  }
}
