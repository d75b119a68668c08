import { describeCost } from '../../protocol/model-price';
import { AgentClient, type StartRunOptions } from '../../client/agent-client';
import type { LiveSnapshot } from '../../protocol/live-snapshots';
import { formatProgress, formatRunEvent } from '../event-printer';
import { LiveProgress } from '../live-progress';
import { LiveAnswer } from '../live-answer';
import { ProgressLine } from '../progress-line';
import type { RunEvent } from '../../protocol/run-events';
import path from 'node:path';
import { loadAgentConfigFile, loadAgentDirectory } from '../../config/load-config';
import type { AgentRunResult, RunTimeouts } from '../../protocol/run-types';
import { AgentConfigError } from '../../protocol/errors';
import { resourceIdProblems, runTimeoutsSchema } from '../../config/agent-config';
import { configTimeouts } from '../../config/upgrade-config';
import { resolveHandoffAgents } from '../../config/handoff-agents';
import { WEB_UI_HINT } from '../../connection/temporal-target';

export interface RunCommandOptions {
  /** The agent's config file; or `agent`. */
  config?: string;
  /** An agent the workers define: `name` or `name@version`. */
  agent?: string;
  task: string;
  follow?: boolean;
  /** Overrides the config's model. */
  model?: string;
  json?: boolean;
  workflowId?: string;
  taskQueue?: string;
  /** Folder of agent configs that handoffs resolve from (default: the config file's folder). */
  agentsDir?: string;
  /** Durations such as `10s` or `5m`; they override the config's `timeouts` for this run. */
  heartbeatTimeout?: string;
  toolTimeout?: string;
  modelStepTimeout?: string;
  /** Continue as new at this many history events (`--history-event-limit`). */
  historyEventLimit?: string;
  /** … or at this much history: bytes, or with a unit (`2MB`, `512KB`). */
  historySizeLimit?: string;
  /** Who the run is for (`--resource user:42`): the memory of agents with `memory: true`. */
  resource?: string;
  /** false with `--no-tool-check`: start without asking the workers for the config's tools. */
  toolCheck?: boolean;
}

/** The run's continue-as-new limits from the command's options. @throws AgentConfigError naming the option. */
export function historyLimitOptions(options: Pick<RunCommandOptions, 'historyEventLimit' | 'historySizeLimit'>): {
  historyEventLimit?: number;
  historySizeLimitBytes?: number;
} {
  const limits: { historyEventLimit?: number; historySizeLimitBytes?: number } = {};
  const problems: string[] = [];
  if (options.historyEventLimit !== undefined) {
    const events = Number(options.historyEventLimit);
    if (Number.isInteger(events) && events >= 20) limits.historyEventLimit = events;
    else problems.push(`--history-event-limit: expected a whole number of events, at least 20 (got '${options.historyEventLimit}')`);
  }
  if (options.historySizeLimit !== undefined) {
    const match = /^(\d+(?:\.\d+)?)\s*(B|KB|MB)?$/i.exec(options.historySizeLimit.trim());
    const bytes = match
      ? Math.round(Number(match[1]) * { B: 1, KB: 1_000, MB: 1_000_000 }[(match[2] ?? 'B').toUpperCase() as 'B' | 'KB' | 'MB'])
      : NaN;
    if (bytes >= 100_000) limits.historySizeLimitBytes = bytes;
    else problems.push(`--history-size-limit: expected a size of at least 100KB, such as 2MB or 512KB (got '${options.historySizeLimit}')`);
  }
  if (problems.length > 0) throw new AgentConfigError(`Invalid run options:\n  ${problems.join('\n  ')}`, problems);
  return limits;
}

/** The run's own timeouts from the command's options (validated like the config's), in milliseconds. */
export function timeoutOptions(
  options: Pick<RunCommandOptions, 'heartbeatTimeout' | 'toolTimeout' | 'modelStepTimeout'>,
): Partial<RunTimeouts> | undefined {
  const flags = { heartbeat: '--heartbeat-timeout', tool: '--tool-timeout', model_step: '--model-step-timeout' } as const;
  const given = { heartbeat: options.heartbeatTimeout, tool: options.toolTimeout, model_step: options.modelStepTimeout };
  const parsed = runTimeoutsSchema.safeParse(Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${flags[issue.path[0] as keyof typeof flags]}: ${issue.message}`);
    throw new AgentConfigError(`Invalid run options:\n  ${problems.join('\n  ')}`, problems);
  }
  const timeouts = configTimeouts({ timeouts: parsed.data });
  return Object.keys(timeouts).length > 0 ? timeouts : undefined;
}

/** `run --config FILE --task TEXT [--follow]`: validates the config, starts a run, prints its id and Web UI link. */
export async function runCommand(options: RunCommandOptions, agents?: AgentClient): Promise<void> {
  const agent = runAgentOptions(options);
  const timeouts = timeoutOptions(options);
  const historyLimits = historyLimitOptions(options);
  const client = agents ?? (await AgentClient.connect(undefined, { taskQueue: options.taskQueue }));
  try {
    const run = await client.startRun({
      ...agent,
      task: options.task,
      workflowId: options.workflowId,
      timeouts,
      ...historyLimits,
      ...(options.resource !== undefined ? { resourceId: options.resource } : {}),
      ...(options.toolCheck === false ? { checkWorkerTools: false } : {}),
    });
    if (!options.json) {
      console.log(`Started run ${run.workflowId}`);
      console.log(webUiLine(run.webUiUrl));
    }
    if (!options.follow) {
      if (options.json) console.log(JSON.stringify({ workflowId: run.workflowId, webUiUrl: run.webUiUrl }));
      return;
    }
    const result = await followRun(run, Boolean(options.json));
    if (options.json) console.log(JSON.stringify({ workflowId: run.workflowId, webUiUrl: run.webUiUrl, result }));
    else printResult(result, run.webUiUrl);
  } finally {
    if (!agents) await client.close();
  }
}

/**
 * The run's agent from the command's options, read before connecting: the config file (and the
 * handoff agents beside it), or a named agent with `--model` as its override.
 * @throws AgentConfigError naming the option: both or neither of --config and --agent, an invalid
 * config, a config with memory and no --resource.
 */
function runAgentOptions(options: RunCommandOptions): Pick<StartRunOptions, 'config' | 'agents' | 'agent' | 'overrides'> {
  const refuse = (problem: string): never => {
    throw new AgentConfigError(`Invalid run options:\n  ${problem}`, [problem]);
  };
  if (options.config !== undefined && options.agent !== undefined) refuse('--agent: give --config or --agent, not both');
  if (options.agent !== undefined) return { agent: options.agent, ...(options.model !== undefined ? { overrides: { model: options.model } } : {}) };
  if (options.config === undefined)
    return refuse('--config: required (an agent config file), or --agent with the name of an agent the workers define');
  const config = loadAgentConfigFile(options.config, { model: options.model });
  const handoffAgents = config.handoffs.length > 0 ? loadAgentDirectory(options.agentsDir ?? path.dirname(options.config)) : {};
  // Before connecting: a config with memory and no --resource is the user's to fix, whatever the server.
  const resourceProblems = resourceIdProblems([config, ...Object.values(resolveHandoffAgents(config, handoffAgents))], options.resource).map(
    (problem) => problem.replace(/^resourceId:/, '--resource:'),
  );
  if (resourceProblems.length > 0) throw new AgentConfigError(`Invalid run options:\n  ${resourceProblems.join('\n  ')}`, resourceProblems);
  return { config, agents: handoffAgents };
}

/** What `followRun` follows: a run, or a thread's turn (`TurnHandle`). */
export interface Followable<Result> {
  live(options: { signal?: AbortSignal }): AsyncGenerator<LiveSnapshot>;
  events(): AsyncGenerator<RunEvent>;
  result(): Promise<Result>;
}

/**
 * Prints events as they happen (with a spinner while a step runs, on a terminal), each answer as
 * it streams and tool progress as it is reported, then returns the run's (or turn's) result.
 * `onEvent` runs after each event is printed (the chat asks for approvals there); when it returns
 * true it dealt with the event (decided the approval it asked for), so no spinner waits on it.
 * `formatEvent` makes each event's line (the chat leaves approval requests to its prompt).
 */
export async function followRun<Result = AgentRunResult>(
  run: Followable<Result>,
  quiet: boolean,
  out: NodeJS.WritableStream = process.stdout,
  onEvent: (event: RunEvent) => Promise<boolean | void> = async () => {},
  formatEvent: (event: RunEvent) => string | null = formatRunEvent,
): Promise<Result> {
  if (quiet) return run.result();
  const progress = new ProgressLine(out);
  const answer = new LiveAnswer((text) => {
    progress.stop(); // the answer replaces the spinner; the next event sets it again
    out.write(text);
  });
  const toolProgress = new LiveProgress();
  const stopStreaming = new AbortController();
  const streaming = (async () => {
    for await (const snapshot of run.live({ signal: stopStreaming.signal })) {
      if (snapshot.kind === 'tool-progress') {
        if (!toolProgress.snapshot(snapshot)) continue;
        answer.endLine();
        progress.print(formatProgress(snapshot.toolName, snapshot.latest));
      } else if (snapshot.purpose === 'executor') {
        answer.snapshot(snapshot.step, snapshot.text);
      }
    }
  })().catch(() => undefined); // live updates are a nicety: the events below carry everything
  try {
    for await (const event of run.events()) {
      if (event.type === 'text-produced' && answer.final(event.step, event.text)) continue;
      if (event.type === 'mcp-progress' && !toolProgress.event(event.callId)) continue;
      const line = formatEvent(event);
      if (line !== null) {
        answer.endLine();
        progress.print(line);
      }
      if (event.type === 'approval-requested') progress.stop();
      const handled = await onEvent(event);
      const waiting = handled === true ? null : spinnerLabel(event);
      if (waiting) progress.set(waiting);
      if ('step' in event && typeof event.step === 'number') answer.reach(event.step);
    }
  } finally {
    stopStreaming.abort();
    await streaming;
    progress.stop();
    answer.endLine();
  }
  return run.result();
}

/** What the run is busy with after an event, for the spinner. */
function spinnerLabel(event: RunEvent): string | null {
  switch (event.type) {
    case 'status-changed':
      return event.phase === 'model'
        ? `step ${event.step}: model`
        : event.phase === 'planning'
          ? 'planning'
          : event.phase === 'compacting'
            ? `step ${event.step}: compacting`
            : null;
    case 'tool-called':
      return `step ${event.step}: running tools`;
    case 'approval-requested':
      return `waiting for approval ${event.request.approvalId}`;
    default:
      return null;
  }
}

export function printResult(result: AgentRunResult, webUiUrl: string | null): void {
  console.log('');
  console.log(
    `Answer (${result.stopReason}, ${result.steps} steps, ${result.usage.inputTokens} in / ${result.usage.outputTokens} out tokens, ${describeCost(result.usage)}):`,
  );
  console.log(result.structuredOutput !== undefined ? JSON.stringify(result.structuredOutput, null, 2) : result.output);
  if (result.stopDetail) console.log(`(${result.stopDetail})`);
  const models = Object.entries(result.usage.byModel);
  if (models.length > 1) {
    console.log(
      `Tokens by model: ${models.map(([model, usage]) => `${model} ${usage.inputTokens} in / ${usage.outputTokens} out, ${describeCost(usage)}`).join('; ')}`,
    );
  }
  console.log(`\n${webUiLine(webUiUrl)}`);
}

/** The run's Web UI link, or how to get one (the connection names a server whose UI is not known). */
export function webUiLine(webUiUrl: string | null): string {
  return webUiUrl ? `Web UI: ${webUiUrl}` : `Web UI: no link (${WEB_UI_HINT})`;
}
