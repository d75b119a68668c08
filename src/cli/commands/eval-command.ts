import path from 'node:path';
import { AgentClient } from '../../client/agent-client';
import { evaluateRuns } from '../../client/evaluation/evaluate';
import { renderEvaluation } from '../../client/evaluation/report';
import { loadAgentConfigFile, loadAgentDirectory } from '../../config/load-config';
import { AgentConfigError } from '../../protocol/errors';

export interface EvalCommandOptions {
  runs?: string[];
  query?: string;
  limit?: string;
  config: string;
  model?: string;
  liveTools?: boolean;
  json?: boolean;
  maxDiverged?: string;
  taskQueue?: string;
  agentsDir?: string;
}

/**
 * `eval --runs <ids…> | --query Q --config FILE [--model M] [--live-tools] [--json] [--max-diverged K]`:
 * replays the recorded runs under the config and prints the report. Exit code 1 when more than
 * K runs (default 0) diverged, so CI fails on a change that behaves differently.
 */
export async function evalCommand(options: EvalCommandOptions, agents?: AgentClient): Promise<void> {
  const maxDiverged = wholeNumber('--max-diverged', options.maxDiverged, 0);
  const limit = wholeNumber('--limit', options.limit, 50);
  const config = loadAgentConfigFile(options.config, { model: options.model });
  const handoffAgents = config.handoffs.length > 0 ? loadAgentDirectory(options.agentsDir ?? path.dirname(options.config)) : {};
  const client = agents ?? (await AgentClient.connect(undefined, { taskQueue: options.taskQueue }));
  try {
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
    console.log(options.json ? JSON.stringify(report) : renderEvaluation(report));
    if (!report.passed) process.exitCode = 1;
  } finally {
    if (!agents) await client.close();
  }
}

function wholeNumber(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (/^\d+$/.test(value.trim())) return Number(value);
  const problem = `${flag}: expected a whole number, got '${value}'`;
  throw new AgentConfigError(`Invalid eval options:\n  ${problem}`, [problem]);
}
