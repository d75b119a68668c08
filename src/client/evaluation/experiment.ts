// Experiments: two configs (or models) on the same dataset, trial by trial, example by example, side by side.
import type { AgentConfig, AgentConfigInput } from '../../config/agent-config';
import type { AgentClient } from '../agent-client';
import { readDataset } from './dataset';
import { evaluateDataset, type DatasetEvaluationOptions, type DatasetEvaluationReport, type ExampleResult } from './evaluate-dataset';

/** One side of an experiment: a config, a model over it, and what the report calls it. */
export interface ExperimentArm {
  config: AgentConfigInput | AgentConfig;
  model?: string;
  /** Default: `baseline` / `candidate`. */
  label?: string;
}

/** What `runExperiment` compares: the same dataset, scorers and trials under two arms. */
export interface ExperimentOptions extends Omit<DatasetEvaluationOptions, 'config' | 'model' | 'onExample' | 'maxFailed'> {
  baseline: ExperimentArm;
  candidate: ExperimentArm;
  /** The experiment passes while at most this many examples regress (default 0). */
  maxRegressions?: number;
}

/** An example's trials on one arm, summed up. */
export interface ArmSummary {
  /** Trials that passed every threshold, out of `trials`. */
  passed: number;
  trials: number;
  /** The mean of every score of every trial. */
  meanScore: number;
  meanWallTimeMs: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** One example on both arms, and which way it moved. */
export interface ExperimentExample {
  id: string;
  labels: string[];
  baseline: ArmSummary;
  candidate: ArmSummary;
  /** `regression`: fewer trials pass (or as many, with a mean score 0.05 or more lower); `improvement` the other way. */
  change: 'regression' | 'improvement' | 'same';
}

/** The report of an experiment: both evaluations in full, and the comparison. */
export interface ExperimentReport {
  dataset: string;
  trials: number;
  labels: { baseline: string; candidate: string };
  examples: ExperimentExample[];
  totals: { baseline: ArmSummary; candidate: ArmSummary; regressions: number; improvements: number };
  maxRegressions: number;
  passed: boolean;
  baseline: DatasetEvaluationReport;
  candidate: DatasetEvaluationReport;
}

/** How much lower a mean score must be, at the same pass count, to count as a regression. */
const SCORE_MARGIN = 0.05;

/**
 * Runs the dataset under both arms (one after the other, same scorers, same trials) and compares
 * each example: pass counts, mean scores, latency, tokens and cost. Save it with
 * `JSON.stringify` and `renderExperimentMarkdown`.
 * @example
 * import { AgentClient, loadAgentConfigFile, renderExperimentMarkdown, runExperiment } from 'durable-agents';
 *
 * const agents = await AgentClient.connect();
 * const report = await runExperiment(agents, {
 *   dataset: 'evals/support.jsonl',
 *   baseline: { config: loadAgentConfigFile('agents/support.yaml') },
 *   candidate: { config: loadAgentConfigFile('agents/support-v2.yaml') },
 *   trials: 3,
 * });
 * console.log(renderExperimentMarkdown(report));
 */
export async function runExperiment(agents: AgentClient, options: ExperimentOptions): Promise<ExperimentReport> {
  const { baseline: baselineArm, candidate: candidateArm, maxRegressions = 0, ...shared } = options;
  const dataset = typeof shared.dataset === 'string' ? readDataset(shared.dataset) : shared.dataset;
  const run = (arm: ExperimentArm) =>
    evaluateDataset(agents, {
      ...shared,
      dataset,
      config: arm.config,
      ...(arm.model ? { model: arm.model } : {}),
      maxFailed: Number.MAX_SAFE_INTEGER,
    });
  const baseline = await run(baselineArm);
  const candidate = await run(candidateArm);
  const ids = [...new Set(baseline.results.map((result) => result.id))];
  const examples = ids.map((id): ExperimentExample => {
    const before = summarise(baseline.results.filter((result) => result.id === id));
    const after = summarise(candidate.results.filter((result) => result.id === id));
    const change =
      after.passed < before.passed || (after.passed === before.passed && after.meanScore <= before.meanScore - SCORE_MARGIN)
        ? 'regression'
        : after.passed > before.passed || after.meanScore >= before.meanScore + SCORE_MARGIN
          ? 'improvement'
          : 'same';
    return { id, labels: baseline.results.find((result) => result.id === id)!.labels, baseline: before, candidate: after, change };
  });
  const regressions = examples.filter((example) => example.change === 'regression').length;
  return {
    dataset: baseline.dataset,
    trials: baseline.trials,
    labels: { baseline: baselineArm.label ?? 'baseline', candidate: candidateArm.label ?? 'candidate' },
    examples,
    totals: {
      baseline: summarise(baseline.results),
      candidate: summarise(candidate.results),
      regressions,
      improvements: examples.filter((example) => example.change === 'improvement').length,
    },
    maxRegressions,
    passed: regressions <= maxRegressions,
    baseline: { ...baseline, dataset: typeof shared.dataset === 'string' ? shared.dataset : baseline.dataset },
    candidate: { ...candidate, dataset: typeof shared.dataset === 'string' ? shared.dataset : candidate.dataset },
  };
}

function summarise(results: readonly ExampleResult[]): ArmSummary {
  const scores = results.flatMap((result) => result.scores.map((score) => score.score));
  const sum = (pick: (result: ExampleResult) => number) => results.reduce((total, result) => total + pick(result), 0);
  const tokens = (field: 'inputTokens' | 'outputTokens') =>
    sum((result) => Object.values(result.tokensByModel).reduce((total, usage) => total + usage[field], 0));
  return {
    passed: results.filter((result) => result.passed).length,
    trials: results.length,
    meanScore: scores.length ? scores.reduce((total, score) => total + score, 0) / scores.length : 0,
    meanWallTimeMs: results.length ? sum((result) => result.wallTimeMs) / results.length : 0,
    inputTokens: tokens('inputTokens'),
    outputTokens: tokens('outputTokens'),
    costUsd: sum((result) => result.costUsd ?? 0),
  };
}

/**
 * An experiment as a Markdown page: the verdict, the totals side by side, then regressions,
 * improvements and unchanged examples, one table row each.
 * @example
 * writeFileSync('experiment.md', renderExperimentMarkdown(report));
 */
export function renderExperimentMarkdown(report: ExperimentReport): string {
  const { baseline: a, candidate: b } = report.labels;
  const cell = (summary: ArmSummary) => `${summary.passed}/${summary.trials} · ${summary.meanScore.toFixed(2)}`;
  const row = (example: ExperimentExample) =>
    `| ${example.id} | ${cell(example.baseline)} | ${cell(example.candidate)} | ${seconds(example.baseline.meanWallTimeMs)} → ${seconds(example.candidate.meanWallTimeMs)} | ${example.baseline.inputTokens + example.baseline.outputTokens} → ${example.candidate.inputTokens + example.candidate.outputTokens} | ${dollars(example.baseline.costUsd)} → ${dollars(example.candidate.costUsd)} |`;
  const table = (title: string, rows: ExperimentExample[]) =>
    rows.length === 0
      ? []
      : [
          '',
          `## ${title} (${rows.length})`,
          '',
          `| example | ${a} passed · mean score | ${b} passed · mean score | latency | tokens | cost |`,
          '| --- | --- | --- | --- | --- | --- |',
          ...rows.map(row),
        ];
  const { totals } = report;
  return [
    `# Experiment: ${b} against ${a}`,
    '',
    `Dataset ${report.dataset}, ${report.examples.length} example(s), ${report.trials} trial(s) each. ` +
      `**${report.passed ? 'PASSED' : 'FAILED'}**: ${totals.regressions} regression(s) (at most ${report.maxRegressions} allowed), ${totals.improvements} improvement(s).`,
    '',
    `| | ${a} (${report.baseline.model}) | ${b} (${report.candidate.model}) |`,
    '| --- | --- | --- |',
    `| trials passed | ${totals.baseline.passed}/${totals.baseline.trials} | ${totals.candidate.passed}/${totals.candidate.trials} |`,
    `| mean score | ${totals.baseline.meanScore.toFixed(2)} | ${totals.candidate.meanScore.toFixed(2)} |`,
    `| mean latency | ${seconds(totals.baseline.meanWallTimeMs)} | ${seconds(totals.candidate.meanWallTimeMs)} |`,
    `| tokens (in/out) | ${totals.baseline.inputTokens}/${totals.baseline.outputTokens} | ${totals.candidate.inputTokens}/${totals.candidate.outputTokens} |`,
    `| cost | ${dollars(totals.baseline.costUsd)} | ${dollars(totals.candidate.costUsd)} |`,
    ...table(
      'Regressions',
      report.examples.filter((example) => example.change === 'regression'),
    ),
    ...table(
      'Improvements',
      report.examples.filter((example) => example.change === 'improvement'),
    ),
    ...table(
      'Unchanged',
      report.examples.filter((example) => example.change === 'same'),
    ),
    '',
  ].join('\n');
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function dollars(usd: number): string {
  return `$${usd.toFixed(4)}`;
}
