import path from 'node:path';
import { AgentClient } from '../../client/agent-client';
import { commandLineModel, loadAgentConfigFile, loadAgentDirectory } from '../../config/load-config';
import { AgentRuntimeError, ErrorCode } from '../../protocol/errors';
import { forkEditsFromFlags, type ForkEditFlags } from '../fork-edit-flags';
import { followRun, printResult } from './run-command';

export interface ForkCommandOptions extends ForkEditFlags {
  fromStep: string;
  config?: string;
  /** A version of a named agent (`support@3f2a9c0d1b7e`) to continue under, instead of `config`. */
  agent?: string;
  model?: string;
  task?: string;
  follow?: boolean;
  json?: boolean;
  workflowId?: string;
  runId?: string;
  taskQueue?: string;
  agentsDir?: string;
}

/**
 * `fork <run> --from-step N [--config FILE] [--model M] [--task TEXT] [--edit-… …] [--follow]`:
 * checks the origin's history, the edits and the config, starts the fork, prints its id and Web UI link.
 */
export async function forkCommand(run: string, options: ForkCommandOptions, agents?: AgentClient): Promise<void> {
  const fromStep = stepNumber(options.fromStep, run);
  const edits = forkEditsFromFlags(options, process.cwd());
  const config = options.config ? loadAgentConfigFile(options.config, { model: options.model }) : undefined;
  const agentsDir = options.agentsDir ?? (config && config.handoffs.length > 0 && options.config ? path.dirname(options.config) : undefined);
  if (config && options.agent) throw new AgentRuntimeError(ErrorCode.forkRefused, '--agent: give --config or --agent, not both');
  const client = agents ?? (await AgentClient.connect(undefined, { taskQueue: options.taskQueue }));
  try {
    const named = options.agent ? await client.agentDefinition(options.agent) : null;
    const fork = await client.fork(run, {
      fromStep,
      ...(named ? { config: options.model ? { ...named.config, model: options.model } : named.config, agents: named.agents } : {}),
      // A relative scripted model is the caller's file: the worker may run in another folder.
      ...(config ? { config } : options.model && !named ? { model: commandLineModel(options.model) } : {}),
      ...(options.task !== undefined ? { task: options.task } : {}),
      ...(edits.length > 0 ? { edits } : {}),
      ...(options.runId ? { runId: options.runId } : {}),
      ...(options.workflowId ? { workflowId: options.workflowId } : {}),
      ...(agentsDir ? { agents: loadAgentDirectory(agentsDir) } : {}),
    });
    if (!options.json) {
      console.log(
        `Started ${edits.length > 0 ? `edited fork (${edits.length} ${edits.length === 1 ? 'edit' : 'edits'})` : 'fork'} ${fork.workflowId} of ${run} after step ${fromStep}`,
      );
      if (fork.webUiUrl) console.log(`Web UI: ${fork.webUiUrl}`);
    }
    if (!options.follow) {
      if (options.json) console.log(JSON.stringify({ workflowId: fork.workflowId, forkOf: run, fromStep, webUiUrl: fork.webUiUrl }));
      return;
    }
    const result = await followRun(fork, Boolean(options.json));
    if (options.json) console.log(JSON.stringify({ workflowId: fork.workflowId, forkOf: run, fromStep, webUiUrl: fork.webUiUrl, result }));
    else printResult(result, fork.webUiUrl);
  } finally {
    if (!agents) await client.close();
  }
}

/** `--from-step` as a step number; the planner's calls (`plan N`) and other text are refused, saying what to give. */
function stepNumber(value: string, run: string): number {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const planner = /^plan\s*\d+$/i.test(text);
  throw new AgentRuntimeError(
    ErrorCode.forkRefused,
    planner
      ? `--from-step: '${text}' is a call of the planner, which a fork cannot start from; fork from step 1 (its conversation keeps the plan)`
      : `--from-step: expected a step number (1, 2, …) as \`durable-agents history ${run}\` prints them, got '${text}'`,
  );
}
