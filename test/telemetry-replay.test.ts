// Turning tracing on for running agents: every recorded agent history replays with the tracing workflow interceptors, and the replay exports no span.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bundleWorkflowCode, Worker, type ReplayResult } from '@temporalio/worker';
import { startAgentTelemetry, type AgentTelemetrySetup } from '../src/telemetry/agent-telemetry-setup';
import { AgentPlugin } from '../src/worker/agent-plugin';
import { agentWorkflowsPath } from '../src/worker/workflow-bundle';
import { corpusFiles, readCorpusHistory, workflowIdOf, workflowTypeOf } from './support/history-corpus';
import { startCollector, type Collector } from './support/otel-collector';
import { AGENT_WORKFLOW_TYPES } from './support/user-workflow-bundle';

let collector: Collector;
let telemetry: AgentTelemetrySetup;
const results = new Map<string, ReplayResult>();
const files = corpusFiles().filter((file) => AGENT_WORKFLOW_TYPES.includes(workflowTypeOf(readCorpusHistory(file)) ?? ''));

beforeAll(async () => {
  collector = await startCollector();
  telemetry = await startAgentTelemetry({ tracesEndpoint: `${collector.endpoint}/v1/traces`, spanExportDelayMs: 50 });
  // The bundle a tracing worker makes: the agent workflows with the tracing workflow interceptors.
  const { code } = await bundleWorkflowCode({
    workflowsPath: agentWorkflowsPath(),
    workflowInterceptorModules: telemetry.workflowInterceptorModules,
    plugins: [new AgentPlugin()],
  });
  const histories = files.map((file) => {
    const history = readCorpusHistory(file);
    return { workflowId: workflowIdOf(history) ?? file, history };
  });
  // Its sinks as a tracing worker has them (the replayer calls none of them).
  const { sinks } = telemetry.configureReplayWorker({ workflowBundle: { code } });
  let current = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle: { code }, sinks }, histories)) results.set(files[current++]!, result);
  await telemetry.forceFlush();
}, 600_000);

afterAll(async () => {
  await telemetry?.shutdown();
  await collector?.stop();
});

describe('recorded agent histories replayed by a tracing worker', () => {
  it('finds agent histories', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(files)('replays %s without nondeterminism', (file) => {
    const result = results.get(file);
    expect(result).toBeDefined();
    expect(result?.error ? String(result.error) : null).toBeNull();
  });

  it('exports no span while replaying', async () => {
    // Spans would have been flushed above; give the collector's own batch time to write them.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(collector.spans().map((span) => span.name)).toEqual([]);
  });
});
