// `eval`: replay recorded runs or a dataset under a changed config; `eval export`: recorded runs to a dataset file.
import path from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { AgentClient } from '../../client/agent-client';
import { evaluateRuns } from '../../client/evaluation/evaluate';
import { evaluateDataset } from '../../client/evaluation/evaluate-dataset';
import { exportDataset } from '../../client/evaluation/dataset-export';
import { renderExperimentMarkdown, runExperiment } from '../../client/evaluation/experiment';
import { writeDataset } from '../../client/evaluation/dataset';
import { renderDatasetEvaluation, renderEvaluation } from '../../client/evaluation/report';
import { invalid as invalidScorers, type ScorerSpec } from '../../client/evaluation/scorers';
import { loadAgentConfigFile, loadAgentDirectory } from '../../config/load-config';
import type { AgentConfig } from '../../config/agent-config';
import { AgentConfigError } from '../../protocol/errors';

export interface EvalCommandOptions {
  runs?: string[];
  query?: string;
  limit?: string;
  config?: string;
  /** A version of a named agent (`support@3f2a9c0d1b7e`) instead of `config`. */
  agent?: string;
  baselineAgent?: string;
  model?: string;
  liveTools?: boolean;
  json?: boolean;
  maxDiverged?: string;
  taskQueue?: string;
  agentsDir?: string;
  dataset?: string;
  scorers?: string;
  trials?: string;
  labels?: string[];
  maxFailed?: string;
  report?: string;
  baseline?: string;
  baselineModel?: string;
  markdown?: string;
  maxRegressions?: string;
}

/**
 * `eval --runs <ids…> | --query Q | --dataset FILE --config FILE [--model M] [--live-tools] [--json]`:
 * replays the recorded runs (or the dataset's examples) under the config and prints the report.
 * Exit code 1 when more than `--max-diverged` runs diverged (recorded runs) or more than
 * `--max-failed` example trials failed a scorer's threshold (a dataset), so CI fails on a change
 * that behaves worse. With `--baseline FILE` the dataset runs under both configs (an experiment):
 * the Markdown comparison is printed (`--markdown` saves it) and the exit code is 1 past
 * `--max-regressions` examples that got worse.
 */
export async function evalCommand(options: EvalCommandOptions, agents?: AgentClient): Promise<void> {
  if (!options.config === !options.agent) throw usage('--config: give the changed agent config file, or --agent name@version (one of them)');
  const maxDiverged = wholeNumber('--max-diverged', options.maxDiverged, 0);
  const limit = wholeNumber('--limit', options.limit, 50);
  const fromFile = options.config ? loadAgentConfigFile(options.config, { model: options.model }) : null;
  const scorers = options.scorers ? readScorers(options.scorers) : undefined;
  const client = agents ?? (await AgentClient.connect(undefined, { taskQueue: options.taskQueue }));
  try {
    // A named agent's version: its definition as the runs and threads that answered with it recorded it.
    const named = options.agent ? await client.agentDefinition(options.agent) : null;
    const config = named ? (options.model ? { ...named.config, model: options.model } : named.config) : fromFile!;
    const handoffAgents = named
      ? named.agents
      : config.handoffs.length > 0
        ? loadAgentDirectory(options.agentsDir ?? path.dirname(options.config!))
        : {};
    const candidateLabel = options.agent ?? path.basename(options.config!);
    if (options.dataset) {
      if (options.runs || options.query) throw usage('--dataset: give the examples by a dataset file or recorded runs (--runs, --query), not both');
      const shared = {
        dataset: options.dataset,
        agents: handoffAgents,
        ...(scorers ? { scorers, scorersFolder: path.dirname(path.resolve(options.scorers!)) } : {}),
        ...(options.labels?.length ? { labels: options.labels } : {}),
        trials: wholeNumber('--trials', options.trials, 1),
        liveTools: Boolean(options.liveTools),
      };
      if (options.baseline || options.baselineAgent) {
        const experiment = await runExperiment(client, {
          ...shared,
          baseline: await baselineOf(client, options),
          candidate: { config, label: candidateLabel },
          maxRegressions: wholeNumber('--max-regressions', options.maxRegressions, 0),
        });
        const markdown = renderExperimentMarkdown(experiment);
        if (options.report) writeFileSync(options.report, JSON.stringify(experiment, null, 2));
        if (options.markdown) writeFileSync(options.markdown, markdown);
        console.log(options.json ? JSON.stringify(experiment) : markdown);
        if (!experiment.passed) process.exitCode = 1;
        return;
      }
      const report = await evaluateDataset(client, {
        ...shared,
        config,
        maxFailed: wholeNumber('--max-failed', options.maxFailed, 0),
        onExample: options.json
          ? undefined
          : (result) =>
              process.stderr.write(`${result.passed ? 'passed' : 'FAILED'}: ${result.id}${result.trial > 1 ? ` (trial ${result.trial})` : ''}\n`),
      });
      if (options.report) writeFileSync(options.report, JSON.stringify(report, null, 2));
      console.log(options.json ? JSON.stringify(report) : renderDatasetEvaluation(report));
      if (!report.passed) process.exitCode = 1;
      return;
    }
    const report = await evaluateRuns(client, {
      ...(options.runs ? { runs: options.runs } : {}),
      ...(options.query ? { query: options.query } : {}),
      limit,
      config,
      liveTools: Boolean(options.liveTools),
      maxDiverged,
      agents: handoffAgents,
      onRun: options.json ? undefined : (run) => process.stderr.write(`${run.diverged ? 'diverged' : 'same'}: ${run.recorded.workflowId}\n`),
    });
    if (options.report) writeFileSync(options.report, JSON.stringify(report, null, 2));
    console.log(options.json ? JSON.stringify(report) : renderEvaluation(report));
    if (!report.passed) process.exitCode = 1;
  } finally {
    if (!agents) await client.close();
  }
}

/** `eval export --runs <ids…> | --query Q --out FILE [--limit N]`: recorded runs as a dataset file (JSONL). */
export async function evalExportCommand(
  options: { runs?: string[]; query?: string; limit?: string; out?: string; taskQueue?: string; description?: string },
  agents?: AgentClient,
): Promise<void> {
  if (!options.out) throw usage('--out: the dataset file to write is required');
  const limit = wholeNumber('--limit', options.limit, 50);
  const client = agents ?? (await AgentClient.connect(undefined, { taskQueue: options.taskQueue }));
  try {
    const examples = await exportDataset(client, {
      ...(options.runs ? { runs: options.runs } : {}),
      ...(options.query ? { query: options.query } : {}),
      limit,
    });
    writeDataset(options.out, examples, options.description);
    console.log(
      `Wrote ${examples.length} example(s) to ${options.out}: add "expected" answers and "labels" to the lines, then \`durable-agents eval --dataset ${options.out} --config <file>\``,
    );
  } finally {
    if (!agents) await client.close();
  }
}

/** A scorers file: YAML or JSON, a list of scorers or `{ scorers: [...] }`. */
function readScorers(file: string): ScorerSpec[] {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw invalidScorers(`Cannot read scorers file ${file}: ${(error as Error).message}`);
  }
  const list = Array.isArray(raw) ? raw : (raw as { scorers?: unknown } | null)?.scorers;
  if (!Array.isArray(list)) throw invalidScorers(`${file}: expected a list of scorers (or a 'scorers:' list)`);
  return list as ScorerSpec[];
}

function wholeNumber(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (/^\d+$/.test(value.trim())) return Number(value);
  throw usage(`${flag}: expected a whole number, got '${value}'`);
}

function usage(problem: string): AgentConfigError {
  return new AgentConfigError(`Invalid eval options:\n  ${problem}`, [problem]);
}

/** The experiment's baseline: a config file (`--baseline`) or a named agent's version (`--baseline-agent`). */
async function baselineOf(client: AgentClient, options: EvalCommandOptions): Promise<{ config: AgentConfig; label: string }> {
  if (options.baseline && options.baselineAgent) throw usage('--baseline-agent: give --baseline or --baseline-agent, not both');
  if (options.baseline)
    return { config: loadAgentConfigFile(options.baseline, { model: options.baselineModel }), label: path.basename(options.baseline) };
  const named = await client.agentDefinition(options.baselineAgent!);
  return { config: options.baselineModel ? { ...named.config, model: options.baselineModel } : named.config, label: options.baselineAgent! };
}
