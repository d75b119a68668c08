import { randomUUID } from 'node:crypto';
import { parseAgentConfig, type AgentConfig, type AgentConfigInput } from '../../config/agent-config';
import { AgentRuntimeError, ErrorCode } from '../../protocol/errors';
import { resolveHandoffAgents } from '../../config/handoff-agents';
import type { Usage } from '../../protocol/messages';
import type { AgentRunWorkflowInput } from '../../protocol/run-types';
import { AgentEvaluationAttribute } from '../../protocol/search-attributes';
import { withSkillSourceKeys } from '../../skills/skill-source';
import type { AgentClient } from '../agent-client';
import { assertWorkersHaveTools } from '../check-worker-tools';
import { compareRuns, failedComparison, type RunComparison } from './compare';
import { readRunRecord } from './run-record';
import { recordedRunIds } from './recorded-run-ids';
import { startAgentWorkflow } from '../start-agent-workflow';

/** What `evaluateRuns` replays, and under which config. */
export interface EvaluationOptions {
  /** Workflow ids of recorded runs. Give these or `query`. */
  runs?: string[];
  /** A visibility query for recorded runs (`AgentName='support' AND StartTime > '2026-11-16T00:00:00Z'`); evaluation runs, forks and sub-agent runs are left out. */
  query?: string;
  /** At most this many runs from `query` (default 50). */
  limit?: number;
  /** The changed config every run is replayed under. */
  config: AgentConfigInput | AgentConfig;
  /** A model ("provider:model") instead of the config's. */
  model?: string;
  /** Run tool calls the recording lacks for real (default: they get an error result). */
  liveTools?: boolean;
  /** The evaluation passes while at most this many runs diverge (default 0). */
  maxDiverged?: number;
  /** Configs of agents the config may hand off to. */
  agents?: Record<string, AgentConfigInput | AgentConfig>;
  /** Evaluation runs at a time (default 4). */
  concurrency?: number;
  /** Called as each run's comparison is ready. */
  onRun?: (comparison: RunComparison) => void;
}

/** The report of an evaluation: each run compared, and the totals. */
export interface EvaluationReport {
  /** The evaluation's id: the `AgentEvaluation` search attribute of its runs. */
  evaluation: string;
  agent: string;
  model: string;
  liveTools: boolean;
  runs: RunComparison[];
  total: {
    runs: number;
    diverged: number;
    sameAnswers: number;
    unmatchedToolCalls: number;
    recorded: { steps: number; tokensByModel: Record<string, Usage>; wallTimeMs: number };
    evaluation: { steps: number; tokensByModel: Record<string, Usage>; wallTimeMs: number };
  };
  maxDiverged: number;
  /** At most `maxDiverged` runs diverged. */
  passed: boolean;
}

/**
 * Replay evaluation: re-runs each recorded run's task under a changed config, as agent runs of
 * their own (visible in the Web UI, tagged with the `AgentEvaluation` search attribute), where a
 * tool call that matches a recorded one (same tool, same arguments) gets the recorded result
 * without running the tool; then compares answers, tool calls, steps, tokens and time. The
 * recorded results come from the recorded runs' histories.
 * @throws AgentRuntimeError `RunNotFound` or `EvaluationRefused` (a run that has not completed,
 * or is a fork), AgentConfigError for an invalid config or tools the workers lack: before any
 * evaluation run starts.
 * @example
 * import { AgentClient, evaluateRuns, loadAgentConfigFile } from 'durable-agents';
 *
 * const agents = await AgentClient.connect();
 * const report = await evaluateRuns(agents, { query: "AgentName='support'", config: loadAgentConfigFile('support-v2.yaml') });
 * for (const run of report.runs) console.log(run.recorded.workflowId, run.diverged ? `diverged at step ${run.firstDivergentStep}` : 'same');
 * process.exitCode = report.passed ? 0 : 1;
 */
export async function evaluateRuns(agents: AgentClient, options: EvaluationOptions): Promise<EvaluationReport> {
  const parsed = parseAgentConfig(options.config, 'the evaluation config');
  const config = withSkillSourceKeys(options.model ? parseAgentConfig({ ...parsed, model: options.model }, 'the evaluation config') : parsed);
  const handoffAgents = resolveHandoffAgents(config, options.agents ?? {}, (agent) => withSkillSourceKeys(agent));
  const ids = await recordedRunIds(agents, options);
  const recorded = await Promise.all(ids.map((id) => readRunRecord(agents.temporal, id)));
  const fork = recorded.find((record) => record.input.fork);
  if (fork)
    throw new AgentRuntimeError(
      ErrorCode.evaluationRefused,
      `run ${fork.workflowId} is a fork: its conversation began in ${fork.input.fork!.workflowId}; evaluate that run instead`,
    );
  const replayed = recorded.find((record) => record.input.replay);
  if (replayed) {
    const { replay } = replayed.input;
    throw new AgentRuntimeError(
      ErrorCode.evaluationRefused,
      `run ${replayed.workflowId} is an evaluation run (of ${replay!.workflowId}, evaluation ${replay!.evaluation}): evaluate the recorded run ${replay!.workflowId} instead`,
    );
  }
  await assertWorkersHaveTools(agents.temporal, agents.taskQueue, [config, ...Object.values(handoffAgents)]);

  const evaluation = newEvaluationId();
  const liveTools = options.liveTools ?? false;
  const runs = await inPool(recorded, options.concurrency ?? 4, async (record) => {
    const input: AgentRunWorkflowInput = {
      config,
      task: record.input.task,
      ...(record.input.messages ? { messages: record.input.messages } : {}),
      ...(Object.keys(handoffAgents).length > 0 ? { agents: handoffAgents } : {}),
      ...(record.input.timeouts ? { timeouts: record.input.timeouts } : {}),
      ...(record.input.historyEventLimit !== undefined ? { historyEventLimit: record.input.historyEventLimit } : {}),
      ...(record.input.historySizeLimitBytes !== undefined ? { historySizeLimitBytes: record.input.historySizeLimitBytes } : {}),
      replay: { workflowId: record.workflowId, runId: record.runId, liveTools, evaluation },
    };
    const run = await startAgentWorkflow(agents, input, {
      workflowId: `${evaluation}.${record.workflowId}`,
      summary: `evaluation ${evaluation}: replay of ${record.workflowId} as ${config.name} on ${config.model}`,
      details: [
        `Replay evaluation **${evaluation}** of run **${record.workflowId}** (execution ${record.runId}).`,
        `Tool calls get the recorded results; unrecorded calls ${liveTools ? 'run for real (--live-tools)' : 'get an error result'}.`,
        ...(agents.runUrl(record.workflowId, record.runId) ? [`Recorded run: ${agents.runUrl(record.workflowId, record.runId)}`] : []),
      ].join('\n\n'),
      attributes: [{ key: AgentEvaluationAttribute, value: evaluation }],
    });
    const comparison = await run.result().then(
      async () => compareRuns(record, await readRunRecord(agents.temporal, run.workflowId)),
      (error: unknown) => failedComparison(record, run.workflowId, error),
    );
    options.onRun?.(comparison);
    return comparison;
  });
  const maxDiverged = options.maxDiverged ?? 0;
  const diverged = runs.filter((run) => run.diverged).length;
  return { evaluation, agent: config.name, model: config.model, liveTools, runs, total: totals(runs), maxDiverged, passed: diverged <= maxDiverged };
}

function totals(runs: RunComparison[]): EvaluationReport['total'] {
  const side = (pick: (run: RunComparison) => RunComparison['recorded']) => {
    const tokensByModel: Record<string, Usage> = {};
    for (const run of runs) {
      for (const [model, usage] of Object.entries(pick(run).tokensByModel)) {
        const sum = (tokensByModel[model] ??= { inputTokens: 0, outputTokens: 0 });
        sum.inputTokens += usage.inputTokens;
        sum.outputTokens += usage.outputTokens;
      }
    }
    return {
      steps: runs.reduce((n, run) => n + pick(run).steps, 0),
      tokensByModel,
      wallTimeMs: runs.reduce((n, run) => n + pick(run).wallTimeMs, 0),
    };
  };
  return {
    runs: runs.length,
    diverged: runs.filter((run) => run.diverged).length,
    sameAnswers: runs.filter((run) => run.sameAnswer).length,
    unmatchedToolCalls: runs.reduce((n, run) => n + run.unmatchedToolCalls.length, 0),
    recorded: side((run) => run.recorded),
    evaluation: side((run) => run.evaluation),
  };
}

/** An evaluation's id, the `AgentEvaluation` search attribute of its runs: `eval-20261123-101500-1a2b`. */
export function newEvaluationId(): string {
  return `eval-${new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${randomUUID().slice(0, 4)}`;
}

/** Maps `items` through `work`, at most `limit` at a time, keeping the order. */
export async function inPool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

// The comparison and record types are part of the report.
export type { RunComparison, RunSummary, StepDivergence } from './compare';
export type { RunRecord } from './run-record';
