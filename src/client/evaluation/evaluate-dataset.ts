// Evaluation from a dataset file: each example's task re-run under a config, tool calls answered from the file, answers scored.
import { parseAgentConfig, type AgentConfig, type AgentConfigInput } from '../../config/agent-config';
import { resolveHandoffAgents } from '../../config/handoff-agents';
import { AgentRuntimeError, ErrorCode } from '../../protocol/errors';
import { DATASET_REPLAY_RUN_ID } from '../../protocol/fork-types';
import type { ModelUsage } from '../../protocol/run-types';
import { AgentEvaluationAttribute } from '../../protocol/search-attributes';
import { withSkillSourceKeys } from '../../skills/skill-source';
import type { AgentClient } from '../agent-client';
import { assertWorkersHaveTools } from '../check-worker-tools';
import { startAgentWorkflow } from '../start-agent-workflow';
import { readDataset, type Dataset, type DatasetExample } from './dataset';
import { exampleRecordedCalls, type ExampleRecordedCalls } from './example-recorded-calls';
import type { ArtifactStore } from '../../artifacts/artifact-store';
import { inPool, newEvaluationId } from './evaluate';
import { readRunRecord } from './run-record';
import { prepareScorers } from './scorer-setup';
import { DEFAULT_SCORERS, type Scorer, type ScorerSpec } from './scorers';

/** What `evaluateDataset` runs, under which config, and how it scores. */
export interface DatasetEvaluationOptions {
  /** A dataset file (`eval export` writes one) or a dataset already read. */
  dataset: string | Dataset;
  config: AgentConfigInput | AgentConfig;
  /** A model ("provider:model") instead of the config's. */
  model?: string;
  /** Configs of agents the config may hand off to. */
  agents?: Record<string, AgentConfigInput | AgentConfig>;
  /** Default: exact answer and the same tool calls in any order (`DEFAULT_SCORERS`). */
  scorers?: ReadonlyArray<ScorerSpec | Scorer>;
  /** The folder custom scorer modules are relative to (default: the working directory). */
  scorersFolder?: string;
  /** Only the examples with one of these labels. */
  labels?: string[];
  /** Each example this many times (default 1), to see how much answers vary. */
  trials?: number;
  /** Run tool calls the example lacks for real (default: they get an error result). */
  liveTools?: boolean;
  /** The evaluation passes while at most this many example trials fail a scorer's threshold (default 0). */
  maxFailed?: number;
  /** Evaluation runs at a time (default 4). */
  concurrency?: number;
  /**
   * Where an example's recorded tool results go when they are too big for an evaluation run's input
   * (over 256 KB): the workers' artifact store. Default: the one the environment configures
   * (`AGENT_ARTIFACT_STORE` or `AGENT_ARTIFACT_DIR`), as the workers read it.
   */
  artifacts?: ArtifactStore;
  onExample?: (result: ExampleResult) => void;
}

/** One scorer's verdict on one trial of an example. */
export interface ExampleScore {
  scorer: string;
  score: number;
  threshold: number;
  passed: boolean;
  detail?: string;
}

/** One trial of one example: what the run answered, what it cost, and its scores. */
export interface ExampleResult {
  id: string;
  trial: number;
  labels: string[];
  workflowId: string;
  output: string;
  structuredOutput?: unknown;
  stopReason: string;
  steps: number;
  toolCalls: Array<{ tool: string; args: unknown }>;
  tokensByModel: Record<string, ModelUsage>;
  costUsd: number | null;
  wallTimeMs: number;
  scores: ExampleScore[];
  /** Every scorer that applies is at or above its threshold (and the run did not fail). */
  passed: boolean;
  failure?: string;
}

/** The report of an evaluation from a dataset. */
export interface DatasetEvaluationReport {
  evaluation: string;
  dataset: string;
  agent: string;
  model: string;
  trials: number;
  results: ExampleResult[];
  /** Each scorer's mean score and how many trials passed it. */
  scorers: Array<{ name: string; threshold: number; mean: number; passed: number; scored: number }>;
  total: { results: number; passed: number; failed: number; costUsd: number; wallTimeMs: number; inputTokens: number; outputTokens: number };
  maxFailed: number;
  passed: boolean;
}

/**
 * Evaluates a config on a dataset: each example's task (and earlier messages) runs as an
 * evaluation run (`AgentEvaluation` set), its tool calls answered with the example's recorded
 * results (the file is the only source: no recorded run's history is read), then every scorer
 * scores the answer. Passing is by thresholds: a trial passes when each scorer that applies is at
 * or above its threshold; the evaluation passes while at most `maxFailed` trials fail.
 * @throws AgentRuntimeError `DatasetInvalid`, `ScorerInvalid`; AgentConfigError for an invalid config or tools the workers lack.
 * @example
 * import { AgentClient, evaluateDataset, loadAgentConfigFile } from 'durable-agents';
 *
 * const agents = await AgentClient.connect();
 * const report = await evaluateDataset(agents, {
 *   dataset: 'evals/support.jsonl',
 *   config: loadAgentConfigFile('agents/support-v2.yaml'),
 *   scorers: [{ type: 'contains' }, { type: 'trajectory', mode: 'superset' }],
 * });
 * process.exitCode = report.passed ? 0 : 1;
 */
export async function evaluateDataset(agents: AgentClient, options: DatasetEvaluationOptions): Promise<DatasetEvaluationReport> {
  const dataset = typeof options.dataset === 'string' ? readDataset(options.dataset) : options.dataset;
  const parsed = parseAgentConfig(options.config, 'the evaluation config');
  const config = withSkillSourceKeys(options.model ? parseAgentConfig({ ...parsed, model: options.model }, 'the evaluation config') : parsed);
  const handoffAgents = resolveHandoffAgents(config, options.agents ?? {}, (agent) => withSkillSourceKeys(agent));
  const examples = options.labels?.length
    ? dataset.examples.filter((example) => example.labels.some((label) => options.labels!.includes(label)))
    : dataset.examples;
  if (examples.length === 0)
    throw new AgentRuntimeError(
      ErrorCode.datasetInvalid,
      `The dataset has no examples${options.labels?.length ? ` labelled ${options.labels.join(' or ')}` : ''}`,
    );
  const trials = options.trials ?? 1;
  if (!Number.isInteger(trials) || trials < 1)
    throw new AgentRuntimeError(ErrorCode.evaluationRefused, `trials: expected a whole number from 1, got ${trials}`);
  const evaluation = newEvaluationId();
  const scorers = await prepareScorers(options.scorers ?? DEFAULT_SCORERS, {
    config,
    agents,
    evaluation,
    folder: options.scorersFolder ?? process.cwd(),
  });
  await assertWorkersHaveTools(agents.temporal, agents.taskQueue, [config, ...Object.values(handoffAgents)]);
  const recordedCalls = await exampleRecordedCalls(examples, evaluation, options.artifacts);
  const liveTools = options.liveTools ?? false;
  const jobs = examples.flatMap((example) => Array.from({ length: trials }, (_, index) => ({ example, trial: index + 1 })));
  const results = await inPool(jobs, options.concurrency ?? 4, async ({ example, trial }) => {
    const result = await runExample(agents, {
      example,
      recordedCalls: recordedCalls.get(example.id)!,
      trial,
      trials,
      config,
      handoffAgents,
      evaluation,
      liveTools,
      scorers,
    });
    options.onExample?.(result);
    return result;
  });
  const maxFailed = options.maxFailed ?? 0;
  const failed = results.filter((result) => !result.passed).length;
  return {
    evaluation,
    dataset: typeof options.dataset === 'string' ? options.dataset : (dataset.header.description ?? 'dataset'),
    agent: config.name,
    model: config.model,
    trials,
    results,
    scorers: scorers.map((scorer) => {
      const scores = results.flatMap((result) => result.scores.filter((score) => score.scorer === scorer.name));
      return {
        name: scorer.name,
        threshold: scorer.threshold ?? 1,
        mean: scores.length ? scores.reduce((sum, score) => sum + score.score, 0) / scores.length : 0,
        passed: scores.filter((score) => score.passed).length,
        scored: scores.length,
      };
    }),
    total: {
      results: results.length,
      passed: results.length - failed,
      failed,
      costUsd: results.reduce((sum, result) => sum + (result.costUsd ?? 0), 0),
      wallTimeMs: results.reduce((sum, result) => sum + result.wallTimeMs, 0),
      inputTokens: results.reduce((sum, result) => sum + Object.values(result.tokensByModel).reduce((n, usage) => n + usage.inputTokens, 0), 0),
      outputTokens: results.reduce((sum, result) => sum + Object.values(result.tokensByModel).reduce((n, usage) => n + usage.outputTokens, 0), 0),
    },
    maxFailed,
    passed: failed <= maxFailed,
  };
}

interface ExampleJob {
  example: DatasetExample;
  recordedCalls: ExampleRecordedCalls;
  trial: number;
  trials: number;
  config: AgentConfig;
  handoffAgents: Record<string, AgentConfig>;
  evaluation: string;
  liveTools: boolean;
  scorers: Scorer[];
}

/** One trial: the evaluation run (its recorded calls in its own input), then the scores of its answer. */
async function runExample(agents: AgentClient, job: ExampleJob): Promise<ExampleResult> {
  const { example, trial, config, evaluation } = job;
  const workflowId = `${evaluation}.${example.id}${job.trials > 1 ? `.${trial}` : ''}`;
  const run = await startAgentWorkflow(
    agents,
    {
      config,
      task: example.task,
      ...(example.messages ? { messages: example.messages as never } : {}),
      ...(Object.keys(job.handoffAgents).length > 0 ? { agents: job.handoffAgents } : {}),
      replay: { workflowId, runId: DATASET_REPLAY_RUN_ID, liveTools: job.liveTools, evaluation, ...job.recordedCalls },
    },
    {
      workflowId,
      summary: `evaluation ${evaluation}: example ${example.id}${job.trials > 1 ? ` (trial ${trial})` : ''} as ${config.name} on ${config.model}`,
      attributes: [{ key: AgentEvaluationAttribute, value: evaluation }],
    },
  );
  const base = { id: example.id, trial, labels: example.labels, workflowId };
  try {
    await run.result();
  } catch (error) {
    const failure = failureChain(error);
    return {
      ...base,
      output: '',
      stopReason: 'failed',
      steps: 0,
      toolCalls: [],
      tokensByModel: {},
      costUsd: null,
      wallTimeMs: 0,
      scores: [],
      passed: false,
      failure,
    };
  }
  const record = await readRunRecord(agents.temporal, workflowId);
  const toolCalls = record.toolCalls.filter((call) => !call.byWorkflow).map(({ tool, args }) => ({ tool, args }));
  const { result } = record;
  const input = {
    example,
    output: result.output,
    ...(result.structuredOutput !== undefined ? { structuredOutput: result.structuredOutput } : {}),
    toolCalls,
    config,
  };
  const scores: ExampleScore[] = [];
  for (const scorer of job.scorers) {
    const threshold = scorer.threshold ?? 1;
    let value;
    try {
      value = await scorer.score(input);
    } catch (error) {
      value = { score: 0, detail: `the scorer threw: ${(error as Error).message}` };
    }
    if (value === null) continue;
    const { score, detail } = typeof value === 'number' ? { score: value, detail: undefined } : value;
    const bounded = Number.isFinite(score) ? Math.min(1, Math.max(0, score)) : 0;
    scores.push({ scorer: scorer.name, score: bounded, threshold, passed: bounded >= threshold, ...(detail ? { detail } : {}) });
  }
  return {
    ...base,
    output: result.output,
    ...(result.structuredOutput !== undefined ? { structuredOutput: result.structuredOutput } : {}),
    stopReason: result.stopReason,
    steps: result.steps,
    toolCalls,
    tokensByModel: result.usage.byModel,
    costUsd: result.usage.costUsd ?? null,
    wallTimeMs: record.wallTimeMs,
    scores,
    passed: scores.every((score) => score.passed),
  };
}

/** "Workflow execution failed: Activity task failed: <the cause> (ArtifactStoreUnavailable)": what failed the run, down to its cause and code. */
function failureChain(error: unknown): string {
  const messages: string[] = [];
  let type: string | undefined;
  for (let current: unknown = error; current instanceof Error && messages.length < 6; current = current.cause) {
    if (current.message && !messages.includes(current.message)) messages.push(current.message);
    type = (current as { type?: string }).type || type;
  }
  return `${messages.join(': ') || String(error)}${type ? ` (${type})` : ''}`;
}
