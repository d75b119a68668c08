// Traces of agent runs in a real OpenTelemetry Collector: the span tree from the caller's span through worker processes (one SIGKILLed), no span twice after replay.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as otel from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { stringify as stringifyYaml } from 'yaml';
import { AgentClient } from '../src/client/agent-client';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import { startAgentTelemetry, type AgentTelemetrySetup } from '../src/telemetry/agent-telemetry-setup';
import { startCollector, type Collector, type ReceivedSpan } from './support/otel-collector';
import { eventually } from './support/test-env';
import { traceWaterfallSvg } from './support/trace-waterfall';
import { TEST_OUTPUT_DIR } from './support/test-output';
import { loggedExecutions, startWorkerProcess, type WorkerProcess } from './support/worker-process';
import { waitForPollers } from './support/task-queue-pollers';

let folder: string;
let collector: Collector;
let agents: AgentClient;
let callerTracing: AgentTelemetrySetup;
let callerProvider: BasicTracerProvider;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'traces-'));
  collector = await startCollector();
  // The caller's own tracing, as an app would set it up: its provider, and the process's context
  // manager and W3C propagator (startAgentTelemetry installs those when the app has none).
  callerTracing = await startAgentTelemetry({ serviceName: 'test-caller' });
  callerProvider = new BasicTracerProvider({ resource: new Resource({ 'service.name': 'test-caller' }) });
  callerProvider.addSpanProcessor(new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${collector.endpoint}/v1/traces` })));
  otel.trace.setGlobalTracerProvider(callerProvider);
  agents = await AgentClient.connect(resolveTemporalTarget(), { taskQueue: `traces-${randomUUID()}`, tracing: true });
});

afterAll(async () => {
  for (const worker of workers.splice(0)) await worker.kill('SIGKILL');
  await agents?.close();
  await callerProvider?.shutdown();
  await callerTracing?.shutdown();
  await collector?.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** The spans whose parent is `parent`. */
function childrenOf(spans: ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((span) => span.parentSpanId === parent.spanId);
}

function only(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1) throw new Error(`expected one span '${name}', found ${found.length}: ${spans.map((span) => span.name).join(', ')}`);
  return found[0]!;
}

/** Every span below `ancestor` (through Temporal's StartActivity / RunActivity spans). */
function descendants(spans: ReceivedSpan[], ancestor: ReceivedSpan): ReceivedSpan[] {
  const below = childrenOf(spans, ancestor);
  return below.flatMap((span) => [span, ...descendants(spans, span)]);
}

/** Whether a span matching `isSpan` has arrived with its parent, its parent's parent, … (`depth` of them). */
function hasParentChain(spans: ReceivedSpan[], isSpan: (span: ReceivedSpan) => boolean, depth: number): boolean {
  let current = spans.find(isSpan);
  for (let level = 0; current && level < depth; level++) current = spans.find((span) => span.spanId === current!.parentSpanId);
  return current !== undefined;
}

describe('traces of an agent run', () => {
  it('puts the caller, the workflow, parallel tools, an approval, a sub-agent and a retried attempt after a SIGKILL in one trace, each span once', async () => {
    const logFile = path.join(folder, 'executions.log');
    const release = path.join(folder, 'release');
    const script = path.join(folder, 'model.yaml');
    writeFileSync(
      script,
      stringifyYaml({
        replies: [
          {
            toolCalls: [
              { name: 'record', args: { label: 'A' } },
              { name: 'record', args: { label: 'B' } },
              { name: 'spawn_self', args: { task: 'child-task', tool_names: ['record'] } },
            ],
          },
          { toolCalls: [{ name: 'chaos_gated', args: { label: 'gated', ms: 0 } }] },
          { toolCalls: [{ name: 'wait_for_release', args: { label: 'C', release } }] },
          { text: 'All done' },
        ],
        variants: [{ taskIncludes: 'child-task', replies: [{ text: 'child done' }] }],
      }),
    );
    // No prebuilt bundle: the worker bundles with the tracing workflow interceptors (a bundle made without them would ignore them).
    const environment = {
      AGENT_WORKFLOW_BUNDLE: '',
      CRASH_LOG: logFile,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_SERVICE_NAME: 'agent-worker',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    const first = await startWorkerProcess(agents.taskQueue, environment);
    workers.push(first);
    // The tool check asks the workers only when one polls the queue: wait for the server to list it.
    await waitForPollers(agents.temporal, agents.taskQueue, 60_000);
    const tracer = callerProvider.getTracer('test');
    const run = await tracer.startActiveSpan('caller', async (span) => {
      try {
        const started = await agents.startRun({
          config: {
            name: 'traced',
            model: `scripted:${script}`,
            tools: ['record', 'chaos_gated', 'wait_for_release', 'spawn_self'],
            hitl_tools: ['chaos_gated'],
            hitl_timeout: '1h',
          },
          task: 'Trace me',
          timeouts: { heartbeatMs: 2_000 },
        });
        // A query made while the caller's span is active: a client span in the caller's trace.
        await started.status();
        return started;
      } finally {
        span.end();
      }
    });
    await eventually(async () => ((await run.status()).pendingApprovals.length === 1 ? true : undefined), 60_000);
    await run.approve('step-2.call-1', { decidedBy: 'alice' });
    await eventually(() => loggedExecutions(logFile).includes('start C'), 60_000);
    // Spans the first worker ended wait in a 100 ms batch, which a SIGKILL loses: let them reach the
    // collector first (the last is step 3's model call, which asked for the tool now running).
    // Its chat span's parents too: the workflow's StartActivity span ends, and is batched, later.
    await collector.waitForSpans(
      (spans) =>
        spans.some((span) => span.name === 'execute_tool chaos_gated') &&
        hasParentChain(spans, (span) => span.name.startsWith('chat ') && span.attributes['durable_agents.step'] === 3, 2),
      60_000,
    );
    await first.kill('SIGKILL');

    writeFileSync(release, 'go');
    const second = await startWorkerProcess(agents.taskQueue, environment);
    workers.push(second);
    expect((await run.result()).output).toBe('All done');

    const caller = only(await collector.waitForSpans((spans) => spans.some((span) => span.name === 'caller'), 60_000), 'caller');
    const received = await collector.waitForSpans(
      (spans) => spans.filter((span) => span.traceId === caller.traceId && span.name.startsWith('invoke_agent')).length === 2,
      60_000,
    );
    const trace = received.filter((span) => span.traceId === caller.traceId);

    // No span twice: the second worker replayed the run's history and exported nothing it replayed,
    // and the spans it made after the replay got ids the first worker had not used (an update's
    // validator, run only by the first worker, would have shifted them: temporal-workflow-interceptors.ts).
    expect(new Set(trace.map((span) => span.spanId)).size).toBe(trace.length);

    // Before the start, the worker-tools check (docs/observability.md): its own short workflow in the
    // caller's trace (a worker polls the queue and this client has no answer cached yet).
    const toolCheck = only(trace, 'StartWorkflow:agentWorkerTools');
    expect(toolCheck.parentSpanId).toBe(caller.spanId);
    expect(descendants(trace, toolCheck).map((span) => span.name)).toEqual(
      expect.arrayContaining(['RunWorkflow:agentWorkerTools', 'StartActivity:listWorkerTools', 'RunActivity:listWorkerTools']),
    );
    // The caller's query: a client span under the caller, and no worker span (queries get none).
    const query = only(trace, 'QueryWorkflow:status');
    expect(query).toMatchObject({ parentSpanId: caller.spanId, service: 'test-caller' });
    expect(childrenOf(trace, query)).toEqual([]);

    // caller → StartWorkflow (client interceptor) → RunWorkflow (worker) → invoke_agent traced
    const startWorkflow = only(trace, 'StartWorkflow:agentRun');
    expect(startWorkflow.parentSpanId).toBe(caller.spanId);
    const runWorkflows = trace.filter((span) => span.name === 'RunWorkflow:agentRun');
    const parentRun = runWorkflows.find((span) => span.parentSpanId === startWorkflow.spanId)!;
    expect(parentRun.service).toBe('agent-worker');
    const invoke = only(childrenOf(trace, parentRun), 'invoke_agent traced');
    expect(invoke.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'traced',
      'gen_ai.provider.name': 'scripted',
      'durable_agents.stop_reason': 'completed',
    });

    const underRun = descendants(trace, invoke);
    // Four model steps of the parent run, each a chat span with the GenAI attributes.
    const chats = underRun.filter((span) => span.name.startsWith('chat ') && span.attributes['durable_agents.purpose'] === 'executor');
    expect(chats.filter((span) => !descendants(trace, only(underRun, 'StartChildWorkflow:agentRun')).includes(span))).toHaveLength(4);
    expect(chats[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.usage.input_tokens': expect.any(Number),
      'gen_ai.usage.output_tokens': expect.any(Number),
    });
    expect(chats[0]?.attributes['gen_ai.input.messages']).toBeUndefined(); // contents only when opted in

    // The two parallel record calls: one execute_tool span each, overlapping in time.
    const records = underRun.filter((span) => span.name === 'execute_tool record');
    expect(records).toHaveLength(2);
    expect(records.every((span) => span.attributes['durable_agents.attempt'] === 1)).toBe(true);
    // The approved call ran once, after the approval.
    expect(underRun.filter((span) => span.name === 'execute_tool chaos_gated')).toHaveLength(1);
    // The call the SIGKILL interrupted: only the retried attempt ended, so only it is a span, with its attempt number.
    const retried = underRun.filter((span) => span.name === 'execute_tool wait_for_release');
    expect(retried).toHaveLength(1);
    expect(retried[0]?.attributes['durable_agents.attempt']).toBe(2);

    // The sub-agent is a child workflow in the same trace, with its own invoke_agent and chat span.
    const child = only(underRun, 'StartChildWorkflow:agentRun');
    const childInvoke = descendants(trace, child).filter((span) => span.name.startsWith('invoke_agent '));
    expect(childInvoke).toHaveLength(1);
    expect(descendants(trace, childInvoke[0]!).filter((span) => span.name.startsWith('chat '))).toHaveLength(1);

    // The trace drawn for review (docs/images/run-trace.svg is one such drawing): a bar per span.
    const drawing = traceWaterfallSvg(trace, 'A traced agent run: parallel tools, an approval, a sub-agent, a worker SIGKILLed');
    expect(drawing.match(/ rx="2" /g)).toHaveLength(trace.length);
    mkdirSync(TEST_OUTPUT_DIR, { recursive: true });
    writeFileSync(path.join(TEST_OUTPUT_DIR, 'run-trace.svg'), drawing);
  }, 240_000);
});
