import type { SearchAttributePair } from '@temporalio/common';
import {
  ApplicationFailure,
  executeChild,
  ParentClosePolicy,
  proxyLocalActivities,
  startChild,
  uuid4,
  workflowInfo,
  type ChildWorkflowHandle,
  type ChildWorkflowOptions,
} from '@temporalio/workflow';
import type { AgentActivities } from '../activities';
import type { SearchAttributesCheck } from '../protocol/activity-types';
import { parseAgentConfig, resourceIdProblems, type AgentConfig, type AgentConfigInput } from '../config/agent-config';
import { parseRunConcurrency, type RunConcurrency } from '../config/concurrency-schema';
import { AgentConfigError, SearchAttributesMissingError } from '../protocol/errors';
import { assertRunTask } from '../protocol/run-task';
import { resolveHandoffAgents } from '../config/handoff-agents';
import type { Message } from '../protocol/messages';
import type { AgentRunInput, AgentRunResult, AgentRunWorkflow, RunTimeouts } from '../protocol/run-types';
import { AgentNameAttribute, AgentSkillSourcesAttribute, AgentStatusAttribute } from '../protocol/search-attributes';
import { WireName } from '../protocol/wire-names';
import { childWorkflowId } from '../workflows/rules/child-workflow-id';

/** An agent run started from your own workflow, as its child workflow. */
export interface RunAgentOptions {
  /** The agent: validated here, in the workflow, before the child starts. */
  config: AgentConfigInput | AgentConfig;
  task: string;
  /** Prior conversation the agent continues from. */
  messages?: Message[];
  /** Configs of the agents in `handoffs` (and in theirs), by name. */
  agents?: Record<string, AgentConfigInput | AgentConfig>;
  timeouts?: Partial<RunTimeouts>;
  /** Default: `<your workflow id>.agent-<agent name>-<deterministic id>`. */
  workflowId?: string;
  /** Default: your workflow's task queue (a worker there needs the agent plugin). */
  taskQueue?: string;
  /** What happens to the agent when your workflow closes first. Default: it is asked to cancel. */
  parentClosePolicy?: ParentClosePolicy;
  /** Continue as new at this many history events (default: when Temporal suggests it). */
  historyEventLimit?: number;
  /** Continue as new once the history has this many bytes (default: when Temporal suggests it). */
  historySizeLimitBytes?: number;
  /** Who the agent works for (`user:42`): its memory, with `memory: true` (then required). See `StartRunOptions.resourceId`. */
  resourceId?: string;
  /** At most `limit` runs started with `key` at once on the task queue; the agent waits for a slot. See `StartRunOptions.concurrency`. */
  concurrency?: RunConcurrency;
}

/**
 * Runs an agent as a child workflow of yours and returns its result: it shows under your
 * workflow in the Web UI, keeps its own history, and survives worker restarts like any run.
 * Approve its gated tools with `AgentClient.getRun(childWorkflowId)` or the `approval` signal.
 * Deterministic and sandbox-safe; an invalid config fails your workflow with a non-retryable
 * `AgentConfigError` naming the fields, and a namespace without the runtime's search attributes
 * (`npx durable-agents setup` registers them) with a non-retryable `SearchAttributesMissing`,
 * checked by a local activity of the agent plugin before the child starts.
 * @example
 * import { runAgent } from 'durable-agents/workflow';
 *
 * export async function supportCase(ticket: string): Promise<string> {
 *   const result = await runAgent({
 *     config: { name: 'support', model: 'openai:gpt-4o-mini', tools: ['lookup_order'] },
 *     task: `Answer this ticket: ${ticket}`,
 *   });
 *   return result.output;
 * }
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRunResult> {
  const child = childOptions(options);
  await assertSearchAttributes(options, child);
  return executeChild<AgentRunWorkflow>(WireName.agentRunWorkflow, child);
}

/**
 * Starts an agent as a child workflow and returns its handle (`await handle.result()`), for
 * workflows that do other work (or signal the agent) while it runs.
 * @example
 * const agent = await startAgent({ config: { name: 'researcher', model: 'anthropic:claude-sonnet-4-5' }, task });
 * await agent.signal(injectMessageSignal, { text: 'Also check the changelog.' });
 * const { output } = await agent.result();
 */
export async function startAgent(options: RunAgentOptions): Promise<ChildWorkflowHandle<AgentRunWorkflow>> {
  const child = childOptions(options);
  await assertSearchAttributes(options, child);
  return startChild<AgentRunWorkflow>(WireName.agentRunWorkflow, child);
}

/**
 * Fails your workflow with a non-retryable `SearchAttributesMissing` (the message `startRun` gives)
 * when the namespace lacks an attribute the child starts with: without them Temporal fails the
 * workflow task that starts the child (`BadSearchAttributes`) and retries it for ever. Asked by a
 * local activity of the agent plugin (one marker in your history), and only when the child runs on
 * your workflow's task queue: that worker has the plugin. An answer of "could not tell" (the
 * server unreachable, a refused query) lets the start go ahead.
 */
async function assertSearchAttributes(options: RunAgentOptions, child: { typedSearchAttributes: SearchAttributePair[] }): Promise<void> {
  const info = workflowInfo();
  if (options.taskQueue !== undefined && options.taskQueue !== info.taskQueue) return;
  const names = child.typedSearchAttributes.map((pair) => pair.key.name);
  let answer: SearchAttributesCheck;
  try {
    answer = await proxyLocalActivities<AgentActivities>({ startToCloseTimeout: '10s', retry: { maximumAttempts: 2 } }).checkSearchAttributes(names);
  } catch (error) {
    if (error instanceof ReferenceError) {
      // A deployment problem, not your workflow's: the task retries until a worker with the plugin takes it.
      throw new Error(
        `runAgent needs the durable-agents AgentPlugin on the worker that runs this workflow (task queue '${info.taskQueue}'): ${error.message}`,
      );
    }
    return;
  }
  if (answer.missing === null) return;
  const refusal = new SearchAttributesMissingError(info.namespace, answer.missing);
  throw ApplicationFailure.create({
    type: refusal.code,
    message: refusal.message,
    nonRetryable: true,
    details: [{ namespace: info.namespace, attributes: names }],
  });
}

function childOptions(options: RunAgentOptions): ChildWorkflowOptions & { args: [AgentRunInput]; typedSearchAttributes: SearchAttributePair[] } {
  const { config, agents } = validated(options);
  const parent = workflowInfo();
  return {
    workflowId: options.workflowId ?? childWorkflowId(`${parent.workflowId}.agent-${config.name}-${uuid4().slice(0, 8)}`),
    ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}),
    parentClosePolicy: options.parentClosePolicy ?? ParentClosePolicy.REQUEST_CANCEL,
    staticSummary: `${config.name}: ${options.task.replace(/\s+/g, ' ').trim().slice(0, 100)}`,
    typedSearchAttributes: [
      { key: AgentNameAttribute, value: config.name },
      { key: AgentStatusAttribute, value: 'running' },
      ...(config.skill_sources.length > 0 ? [{ key: AgentSkillSourcesAttribute, value: config.skill_sources }] : []),
    ],
    args: [
      {
        config,
        task: options.task,
        ...(Object.keys(agents).length > 0 ? { agents } : {}),
        ...(options.messages ? { messages: options.messages } : {}),
        ...(options.timeouts ? { timeouts: options.timeouts } : {}),
        ...(options.historyEventLimit !== undefined ? { historyEventLimit: options.historyEventLimit } : {}),
        ...(options.historySizeLimitBytes !== undefined ? { historySizeLimitBytes: options.historySizeLimitBytes } : {}),
        ...(options.resourceId !== undefined ? { resourceId: options.resourceId } : {}),
        ...(options.concurrency ? { concurrency: parseRunConcurrency(options.concurrency) } : {}),
      },
    ],
  };
}

/** The config and its handoff agents, validated; a bad one fails the workflow for good (retrying cannot fix it). */
function validated(options: RunAgentOptions): { config: AgentConfig; agents: Record<string, AgentConfig> } {
  try {
    assertRunTask(options.task);
    const config = absoluteSkillSources(parseAgentConfig(options.config));
    const agents = resolveHandoffAgents(config, options.agents ?? {}, absoluteSkillSources);
    const problems = resourceIdProblems([config, ...Object.values(agents)], options.resourceId);
    if (problems.length > 0) throw new AgentConfigError(`Invalid agent run options:\n  ${problems.join('\n  ')}`, problems);
    if (options.concurrency) parseRunConcurrency(options.concurrency);
    return { config, agents };
  } catch (error) {
    if (error instanceof AgentConfigError) throw ApplicationFailure.nonRetryable(error.message, error.code, { problems: error.problems });
    throw error;
  }
}

/** A workflow has no working directory: skill folders must be absolute (or repository URLs). */
function absoluteSkillSources(config: AgentConfig): AgentConfig {
  const relative = config.skill_sources.filter(
    (source) => !source.startsWith('/') && !/^[a-zA-Z]:[\\/]/.test(source) && !/^[\w+.-]+:\/\/|^[\w.-]+@[\w.-]+:/.test(source),
  );
  if (relative.length === 0) return config;
  const problems = relative.map((source) => `skill_sources: '${source}' must be an absolute folder or a repository URL inside a workflow`);
  throw new AgentConfigError(`Invalid agent config '${config.name}':\n  ${problems.join('\n  ')}`, problems);
}
