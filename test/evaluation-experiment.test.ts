// Experiments on a real dev server: two configs on one dataset, 3 trials each, a saved JSON and Markdown report.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeDataset } from '../src/client/evaluation/dataset';
import { renderExperimentMarkdown, runExperiment, type ExperimentReport } from '../src/client/evaluation/experiment';
import { runCli } from './support/cli-process';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const testTools = createTestTools();
let env: TestEnvironment;
let folder: string;
const agent = `experiment-${Date.now().toString(36)}`;
const config = (model: string) => ({ name: agent, model, tools: ['add', 'echo'] });
const calls = [
  { step: 1, tool: 'add', args: { a: 1, b: 2 }, result: { content: '3', isError: false } },
  { step: 2, tool: 'echo', args: { text: 'hello' }, result: { content: 'hello', isError: false } },
];

beforeAll(async () => {
  folder = mkdtempSync(`${process.env.AGENT_TEST_SCRATCH ?? '/tmp'}/evaluation-experiment-`);
  env = await createTestEnvironment({
    tools: testTools.tools,
    scripts: {
      terse: {
        replies: [
          { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] },
          { toolCalls: [{ name: 'echo', args: { text: 'hello' } }] },
          { text: 'sum {{tool:add}}, echo {{tool:echo}}' },
        ],
      },
      chatty: {
        replies: [
          {
            toolCalls: [
              { name: 'echo', args: { text: 'hello' } },
              { name: 'add', args: { a: 1, b: 2 } },
            ],
          },
          { text: 'The sum is {{tool:add}}; the echo said {{tool:echo}}.' },
        ],
      },
    },
  });
  // "format" wants the terse wording, "friendly" the chatty one: one regression and one improvement.
  writeDataset(path.join(folder, 'ab.jsonl'), [
    { id: 'format', task: 'Add and echo, tersely', answer: 'sum 3, echo hello', toolCalls: calls, expected: { contains: ['sum 3,'] } },
    { id: 'friendly', task: 'Add and echo, kindly', answer: 'sum 3, echo hello', toolCalls: calls, expected: { contains: ['said'] } },
  ]);
});

afterAll(async () => {
  await env?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('experiments', () => {
  it('runs two configs on one dataset with 3 trials each and reports regressions and improvements per example', async () => {
    const report: ExperimentReport = await runExperiment(env.agents, {
      dataset: path.join(folder, 'ab.jsonl'),
      baseline: { config: config('scripted:terse'), label: 'terse' },
      candidate: { config: config('scripted:chatty'), label: 'chatty' },
      scorers: [{ type: 'contains' }, { type: 'trajectory', mode: 'unordered' }],
      trials: 3,
      maxRegressions: 1,
    });
    expect(report.baseline.results).toHaveLength(6);
    expect(report.candidate.results).toHaveLength(6);
    expect(report.examples.map((example) => [example.id, example.change, example.baseline.passed, example.candidate.passed])).toEqual([
      ['format', 'regression', 3, 0],
      ['friendly', 'improvement', 0, 3],
    ]);
    expect(report.totals).toMatchObject({ regressions: 1, improvements: 1, baseline: { trials: 6, passed: 3 }, candidate: { trials: 6, passed: 3 } });
    expect(report.totals.candidate.inputTokens).toBeGreaterThan(0);
    expect(report.passed).toBe(true);
    const markdown = renderExperimentMarkdown(report);
    expect(markdown).toContain('# Experiment: chatty against terse');
    expect(markdown).toContain('## Regressions (1)');
    expect(markdown).toContain('| format | 3/3 · 1.00 | 0/3 · 0.50 |');
    expect(markdown).toContain('## Improvements (1)');
  });

  it('saves the JSON and Markdown reports from the CLI and exits 1 past --max-regressions', async () => {
    writeFileSync(path.join(folder, 'terse.yaml'), `name: ${agent}\nmodel: scripted:terse\ntools: [add, echo]\n`);
    writeFileSync(path.join(folder, 'chatty.yaml'), `name: ${agent}\nmodel: scripted:chatty\ntools: [add, echo]\n`);
    writeFileSync(path.join(folder, 'scorers.yaml'), '- type: contains\n');
    const [json, markdown] = [path.join(folder, 'experiment.json'), path.join(folder, 'experiment.md')];
    const cli = await runCli([
      'eval',
      '--dataset',
      path.join(folder, 'ab.jsonl'),
      '--config',
      path.join(folder, 'chatty.yaml'),
      '--baseline',
      path.join(folder, 'terse.yaml'),
      '--scorers',
      path.join(folder, 'scorers.yaml'),
      '--trials',
      '3',
      '--report',
      json,
      '--markdown',
      markdown,
      '--task-queue',
      env.taskQueue,
    ]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain('**FAILED**: 1 regression(s) (at most 0 allowed), 1 improvement(s)');
    const saved = JSON.parse(readFileSync(json, 'utf8')) as ExperimentReport;
    expect(saved).toMatchObject({
      trials: 3,
      labels: { baseline: 'terse.yaml', candidate: 'chatty.yaml' },
      totals: { regressions: 1, improvements: 1 },
    });
    expect(readFileSync(markdown, 'utf8')).toContain('| format | 3/3 · 1.00 | 0/3 · 0.00 |');
  });
});
