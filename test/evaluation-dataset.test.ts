// Datasets and scorers on a real dev server: export recorded runs, evaluate from the file alone, score by thresholds.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exportDataset } from '../src/client/evaluation/dataset-export';
import { readDataset, writeDataset, type DatasetExampleInput } from '../src/client/evaluation/dataset';
import { evaluateDataset, type DatasetEvaluationReport } from '../src/client/evaluation/evaluate-dataset';
import { AgentRuntimeError, ErrorCode } from '../src/protocol/errors';
import { AgentEvaluationAttribute } from '../src/protocol/search-attributes';
import { runCli } from './support/cli-process';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const testTools = createTestTools();
let env: TestEnvironment;
let folder: string;
const recorded: string[] = [];
const agent = `dataset-${Date.now().toString(36)}`;
const config = (model: string) => ({ name: agent, model, tools: ['add', 'echo'] });
const totalSchema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] };

beforeAll(async () => {
  folder = mkdtempSync(`${process.env.AGENT_TEST_SCRATCH ?? '/tmp'}/evaluation-dataset-`);
  env = await createTestEnvironment({
    tools: testTools.tools,
    scripts: {
      recorded: {
        replies: [
          { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] },
          { toolCalls: [{ name: 'echo', args: { text: 'hello' } }] },
          { text: 'sum {{tool:add}}, echo {{tool:echo}}' },
        ],
      },
      // The same calls in one step, another wording: exact fails, contains and trajectory (unordered) pass.
      reworded: {
        replies: [
          {
            toolCalls: [
              { name: 'echo', args: { text: 'hello' } },
              { name: 'add', args: { b: 2, a: 1 } },
            ],
          },
          { text: 'The sum is {{tool:add}}; the echo said {{tool:echo}}.' },
        ],
      },
      totals: { replies: [{ toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] }, { text: '{"total": {{tool:add}}}' }] },
      nearTotals: { replies: [{ toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] }, { text: '{"total": 3.004}' }] },
      judge: { replies: [{ text: '{"score": 0.8, "reason": "it gives the sum"}' }] },
    },
  });
  for (const task of ['first ticket', 'second ticket']) {
    const run = await env.agents.startRun({ config: config('scripted:recorded'), task });
    expect((await run.result()).output).toBe('sum 3, echo hello');
    recorded.push(run.workflowId);
  }
});

afterAll(async () => {
  await env?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const executions = () => testTools.executions.length;

describe('datasets', () => {
  it('exports recorded runs and evaluates from the file alone: the results come from the file, no tool runs, no history is read', async () => {
    const file = path.join(folder, 'exported.jsonl');
    writeDataset(file, await exportDataset(env.agents, { runs: recorded }), 'two tickets');
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ format: 'durable-agents.dataset', version: 1, description: 'two tickets' });
    expect(lines[1]).toMatchObject({
      id: recorded[0],
      task: 'first ticket',
      config: agent,
      answer: 'sum 3, echo hello',
      toolCalls: [
        { step: 1, tool: 'add', args: { a: 1, b: 2 }, result: { content: '3', isError: false } },
        { step: 2, tool: 'echo', args: { text: 'hello' }, result: { content: 'hello', isError: false } },
      ],
      recorded: { workflowId: recorded[0], steps: 3, stopReason: 'completed' },
      labels: [],
    });
    // The examples of the file, renamed to runs that never existed, and add answering 4: only the file can say so.
    const edited = path.join(folder, 'edited.jsonl');
    const { examples } = readDataset(file);
    writeDataset(
      edited,
      examples.map((example, index): DatasetExampleInput => ({
        ...example,
        id: `ticket-${index + 1}`,
        recorded: undefined,
        toolCalls: example.toolCalls.map((call) => (call.tool === 'add' ? { ...call, result: { content: '4', isError: false } } : call)),
        expected: { answer: 'sum 4, echo hello' },
      })),
    );
    const before = executions();
    const report = await evaluateDataset(env.agents, { dataset: edited, config: config('scripted:recorded') });
    expect(executions()).toBe(before);
    expect(report.passed).toBe(true);
    expect(report.results.map((result) => [result.id, result.output, result.passed])).toEqual([
      ['ticket-1', 'sum 4, echo hello', true],
      ['ticket-2', 'sum 4, echo hello', true],
    ]);
    expect(report.results[0]!.scores.map((score) => [score.scorer, score.score])).toEqual([
      ['exact', 1],
      ['trajectory-unordered', 1],
    ]);
    expect((await env.client.workflow.count(`${AgentEvaluationAttribute.name} = '${report.evaluation}'`)).count).toBe(2);
  });

  it('refuses a malformed dataset, naming the line and the field', () => {
    const file = path.join(folder, 'broken.jsonl');
    writeFileSync(file, '{"format":"durable-agents.dataset","version":1}\n{"id":"a","task":"t","answer":"x"}\n{"id":"b","task":7,"answer":"x"}\n');
    const error = (() => {
      try {
        readDataset(file);
        return null;
      } catch (caught) {
        return caught as AgentRuntimeError;
      }
    })();
    expect(error?.code).toBe(ErrorCode.datasetInvalid);
    expect(error?.message).toContain('line 3');
    expect(error?.message).toContain('task:');
    writeFileSync(file, '{"format":"durable-agents.dataset","version":2}\n');
    expect(() => readDataset(file)).toThrow('version 2, this runtime reads version 1');
  });
});

describe('scorers', () => {
  const dataset = () => {
    const file = path.join(folder, 'scored.jsonl');
    writeDataset(file, [
      {
        id: 'sum',
        task: 'Add one and two, echo hello',
        answer: 'sum 3, echo hello',
        toolCalls: [
          { step: 1, tool: 'add', args: { a: 1, b: 2 }, result: { content: '3', isError: false } },
          { step: 2, tool: 'echo', args: { text: 'hello' }, result: { content: 'hello', isError: false } },
        ],
        expected: { contains: ['3', 'hello'], regex: 'sum is \\d+' },
        labels: ['arithmetic'],
      },
    ]);
    return file;
  };

  it('scores a reworded answer by thresholds: exact and strict trajectory fail, contains, regex, unordered and subset pass; custom scorers and an LLM judge too', async () => {
    const report: DatasetEvaluationReport = await evaluateDataset(env.agents, {
      dataset: dataset(),
      config: config('scripted:reworded'),
      scorers: [
        { type: 'exact' },
        { type: 'contains' },
        { type: 'regex' },
        { type: 'trajectory', mode: 'strict' },
        { type: 'trajectory', mode: 'unordered' },
        { type: 'trajectory', mode: 'subset' },
        { type: 'trajectory', mode: 'superset' },
        { name: 'short', threshold: 0.5, score: ({ output }) => (output.length < 20 ? 1 : 0.25) },
        { type: 'judge', model: 'scripted:judge', criteria: 'The answer states the sum.', threshold: 0.7 },
      ],
      maxFailed: 1,
    });
    const scores = Object.fromEntries(report.results[0]!.scores.map((score) => [score.scorer, [score.score, score.passed]]));
    expect(scores).toEqual({
      exact: [0, false],
      contains: [1, true],
      regex: [1, true],
      'trajectory-strict': [0, false],
      'trajectory-unordered': [1, true],
      'trajectory-subset': [1, true],
      'trajectory-superset': [1, true],
      short: [0.25, false],
      judge: [0.8, true],
    });
    expect(report.results[0]!.scores.find((score) => score.scorer === 'judge')!.detail).toBe('it gives the sum');
    // The judge ran on the workers' (scripted) model, as a run tagged with the evaluation.
    const judged = env.modelCalls.filter((call) => call.modelId === 'judge');
    expect(judged.at(-1)!.request.messages.at(-1)!.content).toContain('Answer to judge:\nThe sum is 3; the echo said hello.');
    expect(report).toMatchObject({ passed: true, total: { results: 1, failed: 1 } });
  });

  it('compares structured output with numeric tolerance and against the schema', async () => {
    const file = path.join(folder, 'totals.jsonl');
    writeDataset(file, [
      {
        id: 'total',
        task: 'Total?',
        answer: '{"total": 3}',
        structuredOutput: { total: 3 },
        toolCalls: [{ step: 1, tool: 'add', args: { a: 1, b: 2 }, result: { content: '3', isError: false } }],
      },
    ]);
    const report = await evaluateDataset(env.agents, {
      dataset: file,
      config: { ...config('scripted:nearTotals'), output_type: totalSchema },
      scorers: [{ type: 'json', name: 'loose', tolerance: 0.01 }, { type: 'json', name: 'tight' }, { type: 'schema' }],
    });
    expect(report.results[0]!.structuredOutput).toEqual({ total: 3.004 });
    expect(report.results[0]!.scores.map((score) => [score.scorer, score.score])).toEqual([
      ['loose', 1],
      ['tight', 0],
      ['schema', 1],
    ]);
    expect(report.results[0]!.scores[1]!.detail).toBe('.total: expected 3, got 3.004');
    const refused = await evaluateDataset(env.agents, { dataset: file, config: config('scripted:totals'), scorers: [{ type: 'schema' }] }).catch(
      (caught: unknown) => caught as AgentRuntimeError,
    );
    expect((refused as AgentRuntimeError).code).toBe(ErrorCode.scorerInvalid);
    expect((refused as AgentRuntimeError).message).toContain('has no output_type');
  });

  it('exports, then evaluates a dataset from the CLI with a custom scorer module, trials and a saved report; exit codes 1 and 2', async () => {
    const file = path.join(folder, 'cli.jsonl');
    const exported = await runCli(['eval', 'export', '--runs', recorded[0]!, '--out', file, '--task-queue', env.taskQueue]);
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('Wrote 1 example(s)');
    writeFileSync(
      path.join(folder, 'mentions-sum.mjs'),
      'export default ({ output }) => ({ score: output.includes("3") ? 1 : 0, detail: "mentions the sum" });\n',
    );
    writeFileSync(
      path.join(folder, 'scorers.yaml'),
      'scorers:\n  - type: contains\n    values: ["3"]\n  - type: custom\n    module: ./mentions-sum.mjs\n',
    );
    writeFileSync(path.join(folder, 'agent.yaml'), `name: ${agent}\nmodel: scripted:reworded\ntools: [add, echo]\n`);
    const saved = path.join(folder, 'report.json');
    const args = [
      'eval',
      '--dataset',
      file,
      '--config',
      path.join(folder, 'agent.yaml'),
      '--scorers',
      path.join(folder, 'scorers.yaml'),
      '--trials',
      '2',
      '--report',
      saved,
      '--task-queue',
      env.taskQueue,
    ];
    const passed = await runCli(args);
    expect(passed.code).toBe(0);
    expect(passed.stdout).toContain('mentions-sum 1.00 (threshold 1): mentions the sum');
    expect(passed.stdout).toContain('PASSED: 0 failed trial(s)');
    const report = JSON.parse(readFileSync(saved, 'utf8')) as DatasetEvaluationReport;
    expect(report).toMatchObject({ trials: 2, total: { results: 2, passed: 2 } });
    expect(report.results.map((result) => result.trial)).toEqual([1, 2]);
    const strict = path.join(folder, 'strict.yaml');
    writeFileSync(strict, '- type: exact\n');
    const failed = await runCli([
      'eval',
      '--dataset',
      file,
      '--config',
      path.join(folder, 'agent.yaml'),
      '--scorers',
      strict,
      '--task-queue',
      env.taskQueue,
    ]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('FAILED: 1 failed trial(s), at most 0 allowed');
    writeFileSync(strict, '- type: exactly\n');
    const bad = await runCli([
      'eval',
      '--dataset',
      file,
      '--config',
      path.join(folder, 'agent.yaml'),
      '--scorers',
      strict,
      '--task-queue',
      env.taskQueue,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('scorer 1');
  });
});
