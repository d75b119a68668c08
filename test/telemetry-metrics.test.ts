// Metrics of agent runs: Prometheus' /metrics scraped for real from a worker, and the same metrics sent over OTLP to a real OpenTelemetry Collector.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { freePort } from '../src/devserver/dev-server';
import { startAgentTelemetry, type AgentTelemetrySetup } from '../src/telemetry/agent-telemetry-setup';
import { telemetryOptionsFromEnvironment } from '../src/telemetry/telemetry-options';
import { defineHook } from '../src/hooks/define-hook';
import { defineTool } from '../src/tools/define-tool';
import { startCollector, type Collector } from './support/otel-collector';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a key up.',
  parameters: z.object({ key: z.string() }),
  execute: ({ key }) => `value of ${key}`,
});
const broken = defineTool({
  name: 'broken',
  description: 'Always fails.',
  parameters: z.object({}),
  execute: () => {
    throw new Error('disk on fire');
  },
});

/** Denies every call to `lookup` of the agent 'guarded' (a before-tool hook's denial). */
const lookupGuard = defineHook({
  name: 'no-lookups',
  point: 'before-tool',
  agents: ['guarded'],
  run: ({ call }) => (call.name === 'lookup' ? { action: 'deny', reason: 'no lookups today' } : undefined),
});

let collector: Collector;
let telemetry: AgentTelemetrySetup;
let env: TestEnvironment;

beforeAll(async () => {
  collector = await startCollector();
  telemetry = await startAgentTelemetry({
    serviceName: 'metrics-test',
    prometheusPort: await freePort(),
    prometheusHost: '127.0.0.1',
    metricsEndpoint: `${collector.endpoint}/v1/metrics`,
    metricExportIntervalMs: 500,
  });
  env = await createTestEnvironment({
    tools: [lookup, broken],
    hooks: [lookupGuard],
    telemetry,
    scripts: {
      metered: {
        replies: [
          {
            toolCalls: [
              { name: 'lookup', args: { key: 'a' } },
              { name: 'broken', args: {} },
            ],
          },
          { toolCalls: [{ name: 'lookup', args: { key: 'gated' } }] },
          { text: 'done' },
        ],
      },
      guarded: {
        replies: [
          {
            toolCalls: [
              { name: 'lookup', args: { key: 'b' } },
              { name: 'broken', args: {} },
            ],
          },
          { text: 'refused' },
        ],
      },
      shout: { replies: [{ toolCalls: [{ name: 'test__shout', args: { text: 'hi' } }] }, { text: 'shouted' }] },
    },
  });
});

afterAll(async () => {
  await env?.close();
  await telemetry?.shutdown();
  await collector?.stop();
});

/** The value of one Prometheus sample line (`name{labels} value`), matched by name and label fragments. */
function sample(exposition: string, name: string, ...labels: string[]): number | undefined {
  const line = exposition.split('\n').find((candidate) => candidate.startsWith(`${name}{`) && labels.every((label) => candidate.includes(label)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('metrics of agent runs', () => {
  it('counts tokens, model call time, tool calls by outcome, approvals and runs by stop reason, on /metrics and over OTLP', async () => {
    const run = await env.agents.startRun({
      config: { name: 'metered', model: 'scripted:metered', tools: ['lookup', 'broken'], hitl_tools: ['lookup'], hitl_timeout: '1h' },
      task: 'Measure me',
    });
    // Step 1's two calls: lookup is gated, broken is not.
    await eventually(async () => ((await run.status()).pendingApprovals.length === 1 ? true : undefined), 30_000);
    const waiting = await (await fetch(telemetry.prometheusUrl!)).text();
    expect(sample(waiting, 'durable_agents_approvals_waiting', 'gen_ai_agent_name="metered"', 'gen_ai_tool_name="lookup"')).toBe(1);
    await run.approve('step-1.call-1', { decidedBy: 'ops' });
    await eventually(async () => ((await run.status()).pendingApprovals.length === 1 ? true : undefined), 30_000);
    await run.approve('step-2.call-1', { decidedBy: 'ops' });
    expect((await run.result()).output).toBe('done');

    const exposition = await eventually(async () => {
      const text = await (await fetch(telemetry.prometheusUrl!)).text();
      return sample(text, 'durable_agents_runs_finished_total', 'durable_agents_stop_reason="completed"') === 1 ? text : undefined;
    });
    expect(sample(exposition, 'durable_agents_runs_finished_total', 'gen_ai_agent_name="metered"', 'durable_agents_stop_reason="completed"')).toBe(1);
    // Three model calls, each counted once per token type.
    expect(
      sample(
        exposition,
        'gen_ai_client_token_usage_count',
        'gen_ai_token_type="input"',
        'gen_ai_provider_name="scripted"',
        'gen_ai_request_model="metered"',
      ),
    ).toBe(3);
    expect(sample(exposition, 'gen_ai_client_token_usage_count', 'gen_ai_token_type="output"')).toBe(3);
    expect(sample(exposition, 'gen_ai_client_operation_duration_count', 'gen_ai_operation_name="chat"')).toBe(3);
    expect(sample(exposition, 'durable_agents_tool_calls_total', 'gen_ai_tool_name="lookup"', 'durable_agents_tool_outcome="ok"')).toBe(2);
    expect(sample(exposition, 'durable_agents_tool_calls_total', 'gen_ai_tool_name="broken"', 'durable_agents_tool_outcome="error"')).toBe(1);
    expect(sample(exposition, 'durable_agents_tool_duration_count', 'gen_ai_tool_name="lookup"')).toBe(2);
    expect(sample(exposition, 'durable_agents_approvals_waiting', 'gen_ai_tool_name="lookup"')).toBe(0);
    expect(sample(exposition, 'durable_agents_approval_wait_duration_count', 'durable_agents_approval_outcome="approved"')).toBe(2);

    // The same instruments reach an OTLP receiver.
    await eventually(() => {
      const names = new Set(collector.metricPoints().map((point) => point.metric));
      return [
        'gen_ai.client.token.usage',
        'gen_ai.client.operation.duration',
        'durable_agents.tool.calls',
        'durable_agents.runs.finished',
        'durable_agents.approval.wait.duration',
      ].every((name) => names.has(name))
        ? true
        : undefined;
    }, 20_000);
    const runsFinished = collector
      .metricPoints()
      .filter((point) => point.metric === 'durable_agents.runs.finished' && point.attributes['durable_agents.stop_reason'] === 'completed');
    expect(runsFinished.at(-1)?.value).toBe(1);
  }, 120_000);
});

describe('metrics of MCP tool calls', () => {
  it("counts a call to an MCP server's tool like a worker tool", async () => {
    const mcpServer = { name: 'test', command: process.execPath, args: ['--import', 'tsx', path.join(__dirname, 'support', 'mcp-test-server.ts')] };
    const run = await env.agents.startRun({ config: { name: 'shouter', model: 'scripted:shout', mcp_servers: [mcpServer] }, task: 'Shout' });
    expect((await run.result()).output).toBe('shouted');
    const exposition = await (await fetch(telemetry.prometheusUrl!)).text();
    expect(sample(exposition, 'durable_agents_tool_calls_total', 'gen_ai_tool_name="test__shout"', 'durable_agents_tool_outcome="ok"')).toBe(1);
  }, 60_000);
});

describe('metrics of denied tool calls', () => {
  it('counts a call a tool policy or a before-tool hook denied with outcome denied, though no tool activity ran', async () => {
    const before = await (await fetch(telemetry.prometheusUrl!)).text();
    const deniedBefore = (tool: string) =>
      sample(before, 'durable_agents_tool_calls_total', `gen_ai_tool_name="${tool}"`, 'durable_agents_tool_outcome="denied"') ?? 0;
    const config = {
      name: 'guarded',
      model: 'scripted:guarded',
      tools: ['lookup', 'broken'],
      tool_policies: [{ tool: 'broken', action: 'deny' as const }],
    };
    const run = await env.agents.startRun({ config, task: 'Try both' });
    const result = await run.result();
    expect(result.output).toBe('refused');
    expect(result.toolResults.map((toolResult) => [toolResult.toolName, toolResult.metadata.status])).toEqual([
      ['lookup', 'denied'],
      ['broken', 'denied'],
    ]);
    // The denials are counted by the worker that ran the workflow task, through the workflow sink.
    const exposition = await eventually(async () => {
      const text = await (await fetch(telemetry.prometheusUrl!)).text();
      return sample(text, 'durable_agents_tool_calls_total', 'gen_ai_tool_name="broken"', 'durable_agents_tool_outcome="denied"') ===
        deniedBefore('broken') + 1
        ? text
        : undefined;
    });
    expect(sample(exposition, 'durable_agents_tool_calls_total', 'gen_ai_tool_name="lookup"', 'durable_agents_tool_outcome="denied"')).toBe(
      deniedBefore('lookup') + 1,
    );
  }, 60_000);
});

describe('telemetry options from the environment', () => {
  it('asks for nothing (loads nothing) without OTEL variables, and reads the standard ones', () => {
    expect(telemetryOptionsFromEnvironment({})).toBeNull();
    expect(telemetryOptionsFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
    expect(
      telemetryOptionsFromEnvironment({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
        OTEL_SERVICE_NAME: 'agents',
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      }),
    ).toEqual({
      serviceName: 'agents',
      tracesEndpoint: 'http://collector:4318/v1/traces',
      metricsEndpoint: 'http://collector:4318/v1/metrics',
      captureMessageContent: true,
    });
    expect(telemetryOptionsFromEnvironment({ OTEL_EXPORTER_PROMETHEUS_PORT: '9464' })).toEqual({
      prometheusPort: 9464,
      captureMessageContent: false,
    });
    expect(() => telemetryOptionsFromEnvironment({ OTEL_EXPORTER_PROMETHEUS_PORT: 'ninety' })).toThrow(
      'OTEL_EXPORTER_PROMETHEUS_PORT must be a port number',
    );
    // What compose passes for variables the user's shell does not set: empty strings, read as unset.
    const composeDefaults = {
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
      OTEL_EXPORTER_PROMETHEUS_PORT: '',
      OTEL_SERVICE_NAME: '',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: '',
    };
    expect(telemetryOptionsFromEnvironment(composeDefaults)).toBeNull();
    expect(telemetryOptionsFromEnvironment({ ...composeDefaults, OTEL_EXPORTER_PROMETHEUS_PORT: '9464' })).toEqual({
      prometheusPort: 9464,
      captureMessageContent: false,
    });
  });
});
