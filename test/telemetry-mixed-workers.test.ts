// Tracing on one worker and off on another: a user's workflow that starts an agent child (its id drawn with uuid4) runs on a tracing worker that bundles it itself, and its history replays on a worker without tracing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import { ScriptedModel } from '../src/models/scripted-model';
import { startAgentTelemetry, type AgentTelemetrySetup } from '../src/telemetry/agent-telemetry-setup';
import { AgentPlugin } from '../src/worker/agent-plugin';
import { defaultModelRegistry } from '../src/worker/default-models';
import { startCollector, type Collector } from './support/otel-collector';
import type { answerTicket } from './support/parent-workflows';
import { eventually } from './support/test-env';
import { createTestTools } from './support/test-tools';
import { userWorkflowBundle } from './support/user-workflow-bundle';

const target = resolveTemporalTarget();
let connection: Connection;
let nativeConnection: NativeConnection;
let collector: Collector;
let telemetry: AgentTelemetrySetup;

beforeAll(async () => {
  connection = await Connection.connect(target.connectionOptions);
  nativeConnection = await NativeConnection.connect(target.connectionOptions);
  collector = await startCollector();
  telemetry = await startAgentTelemetry({ tracesEndpoint: `${collector.endpoint}/v1/traces`, spanExportDelayMs: 50 });
}, 240_000);

afterAll(async () => {
  await telemetry?.shutdown();
  await collector?.stop();
  await connection?.close();
  await nativeConnection?.close();
});

describe('a run traced on one worker and replayed on another without tracing', () => {
  it('replays without nondeterminism, and the tracing worker made one RunWorkflow span per execution', async () => {
    const client = new Client({ connection, namespace: target.namespace });
    const taskQueue = `mixed-${randomUUID()}`;
    const scripted = new ScriptedModel({ scripts: { support: { replies: [{ text: 'Your order ships tomorrow.' }] } } });
    // A user's worker that bundles its own workflows with the agent's: Temporal's plugin would add
    // its own workflow interceptors to such a worker; the agent's replace them.
    const worker = await Worker.create({
      connection: nativeConnection,
      namespace: target.namespace,
      taskQueue,
      workflowsPath: require.resolve('./support/parent-workflows'),
      plugins: [new AgentPlugin({ tools: createTestTools().tools, models: defaultModelRegistry(scripted), telemetry })],
      workflowFailureErrorTypes: { '*': ['DeterminismViolationError'] },
    });
    const workflowId = `mixed-ticket-${randomUUID().slice(0, 8)}`;
    const answer = await worker.runUntil(async () => {
      const handle = await client.workflow.start<typeof answerTicket>('answerTicket', {
        taskQueue,
        workflowId,
        args: ['Where is order 7?', 'scripted:support'],
      });
      return handle.result();
    });
    expect(answer).toBe('Your order ships tomorrow.');

    const parentHistory = await client.workflow.getHandle(workflowId).fetchHistory();
    const childId = parentHistory.events?.find((event) => event.startChildWorkflowExecutionInitiatedEventAttributes)
      ?.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
    expect(childId).toMatch(new RegExp(`^${workflowId}\\.agent-support-[0-9a-f]{8}`));
    const childHistory = await client.workflow.getHandle(childId!).fetchHistory();

    // The same histories on a worker without tracing: the user's bundle as an untraced worker has it.
    const code = await userWorkflowBundle();
    for (const [id, history] of [
      [workflowId, parentHistory],
      [childId!, childHistory],
    ] as const) {
      await expect(Worker.runReplayHistory({ workflowBundle: { code } }, history, id)).resolves.toBeUndefined();
    }

    await telemetry.forceFlush();
    const runSpans = await eventually(() => {
      const spans = collector.spans().filter((span) => span.name === 'RunWorkflow:answerTicket' || span.name === 'RunWorkflow:agentRun');
      if (spans.length < 2) throw new Error(`${spans.length} RunWorkflow spans so far`);
      return spans;
    }, 30_000);
    expect(runSpans.map((span) => span.name).sort()).toEqual(['RunWorkflow:agentRun', 'RunWorkflow:answerTicket']);
    const start = collector.spans().find((span) => span.name === 'StartChildWorkflow:agentRun');
    expect(start?.parentSpanId).toBe(runSpans.find((span) => span.name === 'RunWorkflow:answerTicket')?.spanId);
    expect(new Set(collector.spans().map((span) => span.spanId)).size).toBe(collector.spans().length);
  }, 300_000);
});
