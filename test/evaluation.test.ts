import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { evaluateRuns, type EvaluationReport } from '../src/client/evaluation/evaluate';
import { AiSdkProvider } from '../src/models/ai-sdk-provider';
import { AgentRuntimeError, ErrorCode } from '../src/protocol/errors';
import { AgentEvaluationAttribute } from '../src/protocol/search-attributes';
import { runCli } from './support/cli-process';
import { openAiStream, startFakeProviderServer, type FakeProviderServer } from './support/fake-provider-server';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const testTools = createTestTools();
let env: TestEnvironment;
let server: FakeProviderServer;
const recordedRuns: string[] = [];
const agent = `recorder-${Date.now()}`;

/** What the recorded runs did: add, then echo, then answer. */
const recordedScript = {
  replies: [
    { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] },
    { toolCalls: [{ name: 'echo', args: { text: 'hello' } }] },
    { text: 'sum {{tool:add}}, echo {{tool:echo}}' },
  ],
};

beforeAll(async () => {
  server = await startFakeProviderServer();
  env = await createTestEnvironment({
    tools: testTools.tools,
    scripts: {
      recorded: recordedScript,
      // The same first step (its arguments in another key order), another echo at step 2.
      long: {
        replies: [
          ...Array.from({ length: 7 }, (_, index) => ({ toolCalls: [{ name: 'add', args: { a: index, b: 100 } }] })),
          { text: 'long done {{tool:add}}' },
        ],
      },
      diverging: {
        replies: [
          { toolCalls: [{ name: 'add', args: { b: 2, a: 1 } }] },
          { toolCalls: [{ name: 'echo', args: { text: 'bye' } }] },
          { text: 'sum {{tool:add}}, echo {{tool:echo}}' },
        ],
      },
    },
    providers: { openai: new AiSdkProvider('openai', { OPENAI_API_KEY: 'sk-test-not-a-key', OPENAI_BASE_URL: `${server.baseUrl}/v1` }) },
  });
  for (const task of ['first ticket', 'second ticket']) {
    const run = await env.agents.startRun({ config: { name: agent, model: 'scripted:recorded', tools: ['add', 'echo'] }, task });
    expect((await run.result()).output).toBe('sum 3, echo hello');
    recordedRuns.push(run.workflowId);
  }
});

afterAll(async () => {
  await env?.close();
  await server?.close();
});

const executions = () => testTools.executions.length;
const config = (model: string) => ({ name: agent, model, tools: ['add', 'echo'] });
const evaluationRuns = async (report: EvaluationReport) =>
  (await env.client.workflow.count(`${AgentEvaluationAttribute.name} = '${report.evaluation}'`)).count;

describe('replay evaluation', () => {
  it('replays recorded runs with the same script: no divergence, and no tool runs', async () => {
    const before = executions();
    const report = await evaluateRuns(env.agents, { runs: recordedRuns, config: config('scripted:recorded') });
    expect(executions()).toBe(before);
    expect(report.passed).toBe(true);
    expect(report.total).toMatchObject({ runs: 2, diverged: 0, sameAnswers: 2, unmatchedToolCalls: 0 });
    for (const run of report.runs) {
      expect(run).toMatchObject({ sameAnswer: true, firstDivergentStep: null, unmatchedToolCalls: [], diverged: false });
      expect(run.evaluation).toMatchObject({ output: 'sum 3, echo hello', steps: 3, toolCalls: 2 });
      expect(Object.keys(run.evaluation.tokensByModel)).toEqual(['scripted:recorded']);
    }
    // Evaluation runs are agent runs, tagged with the evaluation.
    expect(await evaluationRuns(report)).toBe(2);
    await recordHistory('evaluation-replayed', env.agents.getRun(report.runs[0]!.evaluation.workflowId));
  });

  it('reports a script that diverges at step 2: the unrecorded call gets an error result, not the tool', async () => {
    const before = executions();
    const report = await evaluateRuns(env.agents, { query: `AgentName = '${agent}'`, config: config('scripted:diverging') });
    expect(executions()).toBe(before);
    expect(report.passed).toBe(false);
    expect(report.runs.map((run) => run.recorded.workflowId).sort()).toEqual([...recordedRuns].sort());
    for (const run of report.runs) {
      expect(run).toMatchObject({
        diverged: true,
        sameAnswer: false,
        firstDivergentStep: 2,
        unmatchedToolCalls: [{ step: 2, call: 'echo({"text":"bye"})' }],
      });
      expect(run.evaluation.output).toMatch(/^sum 3, echo Error: this is a replay evaluation and run .* made no call echo\(\{"text":"bye"\}\)/);
    }
    await recordHistory('evaluation-not-recorded', env.agents.getRun(report.runs[0]!.evaluation.workflowId));
  });

  it('runs unrecorded calls for real with live tools', async () => {
    const before = testTools.executions.filter((execution) => execution.tool === 'echo').length;
    const report = await evaluateRuns(env.agents, {
      runs: [recordedRuns[0]!],
      config: config('scripted:diverging'),
      liveTools: true,
      maxDiverged: 1,
    });
    expect(testTools.executions.filter((execution) => execution.tool === 'echo')).toHaveLength(before + 1);
    expect(testTools.executions.at(-1)).toEqual({ tool: 'echo', args: { text: 'bye' } });
    expect(report.runs[0]).toMatchObject({ firstDivergentStep: 2, unmatchedToolCalls: [{ step: 2 }], evaluation: { output: 'sum 3, echo bye' } });
    expect(report.passed).toBe(true);
    await recordHistory('evaluation-live-tools', env.agents.getRun(report.runs[0]!.evaluation.workflowId));
  });

  it('stays an evaluation run through continue-as-new: later steps get recorded results too', async () => {
    const long = await env.agents.startRun({
      config: { name: `${agent}-long`, model: 'scripted:long', tools: ['add'], max_steps: 8 },
      task: 'Keep adding',
      historyEventLimit: 30,
    });
    expect((await long.result()).output).toBe('long done 106');
    const before = executions();
    const report = await evaluateRuns(env.agents, {
      runs: [long.workflowId],
      config: { name: `${agent}-long`, model: 'scripted:long', tools: ['add'], max_steps: 8 },
    });
    expect(executions()).toBe(before);
    expect(report.runs[0]).toMatchObject({
      diverged: false,
      unmatchedToolCalls: [],
      evaluation: { output: 'long done 106', steps: 8, toolCalls: 7 },
    });
    const chain = await env.client.workflow.count(`WorkflowId = '${report.runs[0]!.evaluation.workflowId}'`);
    expect(chain.count).toBeGreaterThan(1);
  });

  it('evaluates with a real provider implementation (OpenAI wire format on loopback)', async () => {
    server.respond(
      openAiStream({ toolCalls: [{ id: 'call_x', name: 'add', args: { a: 1, b: 2 } }], usage: [30, 5] }),
      openAiStream({ chunks: ['The sum is 3.'], usage: [50, 4] }),
    );
    const before = executions();
    const report = await evaluateRuns(env.agents, { runs: [recordedRuns[0]!], config: config('openai:gpt-4o-mini') });
    expect(executions()).toBe(before);
    expect(report.runs[0]).toMatchObject({
      sameAnswer: false,
      firstDivergentStep: 2,
      unmatchedToolCalls: [],
      evaluation: { output: 'The sum is 3.', steps: 2 },
    });
    expect(report.runs[0]!.evaluation.tokensByModel).toEqual({ 'openai:gpt-4o-mini': { inputTokens: 80, outputTokens: 9, costUsd: 0.0000174 } });
    // The model got the recorded result of add.
    expect(server.requests.at(-1)!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: '3' });
  });

  it('prints the report and exits 1 when runs diverge (CLI, --json, --max-diverged)', async () => {
    const same = await runCli([
      'eval',
      '--runs',
      recordedRuns[0]!,
      '--config',
      configFile('scripted:recorded'),
      '--json',
      '--task-queue',
      env.taskQueue,
    ]);
    expect(same.code).toBe(0);
    expect(JSON.parse(same.stdout) as EvaluationReport).toMatchObject({ passed: true, total: { runs: 1, diverged: 0 } });
    const diverged = await runCli([
      'eval',
      '--runs',
      ...recordedRuns,
      '--config',
      configFile('scripted:diverging'),
      '--max-diverged',
      '1',
      '--task-queue',
      env.taskQueue,
    ]);
    expect(diverged.code).toBe(1);
    expect(diverged.stdout).toContain('tool calls: diverge at step 2 · unmatched: 1');
    expect(diverged.stdout).toContain('not recorded: step 2 echo({"text":"bye"})');
    expect(diverged.stdout).toContain('FAILED: 2 diverged run(s), at most 1 allowed');
  });

  it('refuses bad input before any evaluation run starts, naming it', async () => {
    const refusal = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(AgentRuntimeError);
      return error as AgentRuntimeError;
    };
    const started = async () => (await env.client.workflow.count(`${AgentEvaluationAttribute.name} IS NOT NULL`)).count;
    const before = await started();
    const unknown = await refusal(evaluateRuns(env.agents, { runs: [recordedRuns[0]!, 'no-such-run-7'], config: config('scripted:recorded') }));
    expect(unknown.code).toBe(ErrorCode.runNotFound);
    expect(unknown.message).toContain('no-such-run-7');
    const invalid = await refusal(evaluateRuns(env.agents, { runs: recordedRuns, config: { name: agent, max_steps: -1 } }));
    expect(invalid.code).toBe(ErrorCode.agentConfigInvalid);
    expect(invalid.message).toContain('max_steps');
    const lacking = await refusal(
      evaluateRuns(env.agents, { runs: recordedRuns, config: { ...config('scripted:recorded'), tools: ['add', 'warp_drive'] } }),
    );
    expect(lacking.message).toContain("tool 'warp_drive'");
    const neither = await refusal(evaluateRuns(env.agents, { config: config('scripted:recorded') }));
    expect(neither.code).toBe(ErrorCode.evaluationRefused);
    expect(await started()).toBe(before);
  });
});

function configFile(model: string): string {
  const { mkdtempSync, writeFileSync } = require('node:fs') as typeof import('node:fs');
  const folder = mkdtempSync(`${process.env.AGENT_TEST_SCRATCH ?? '/tmp'}/eval-config-`);
  const file = `${folder}/agent.yaml`;
  writeFileSync(file, `name: ${agent}\nmodel: ${model}\ntools: [add, echo]\n`);
  return file;
}
