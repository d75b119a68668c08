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
import { agentChoiceProblem, agentReferenceOf, type AgentName, type AgentOverrides, type AgentReference } from '../protocol/agent-reference';
import { AgentConfigError, SearchAttributesMissingError } from '../protocol/errors';
import { assertRunTask } from '../protocol/run-task';
import { resolveHandoffAgents } from '../config/handoff-agents';
import type { Message } from '../protocol/messages';
import type { AgentRunInput, AgentRunResult, AgentRunWorkflow, RunTimeouts } from '../protocol/run-types';
import { AgentNameAttribute, AgentSkillSourcesAttribute, AgentStatusAttribute, AgentVersionAttribute } from '../protocol/search-attributes';
import { WireName } from '../protocol/wire-names';
import { childWorkflowId } from '../workflows/rules/child-workflow-id';

/** An agent run started from your own workflow, as its child workflow: give `config` or `agent`, not both. */
export interface RunAgentOptions {
  /** The agent, inline: validated here, in the workflow, before the child starts. */
  config?: AgentConfigInput | AgentConfig;
  /**
   * An agent the workers define (docs/agents.md), by name: `support`, `support@<version or label>`
   * or a reference. The child resolves it on its workers and records the definition in its history.
   */
  agent?: AgentName;
  /** Fields the named agent's definition lets callers override (its `overridable`); only with `agent`. */
  overrides?: AgentOverrides;
  task: string;
  /** Prior conversation the agent continues from. */
  messages?: Message[];
  /** Configs of the agents in `handoffs` (and in theirs), by name; only with `config` (a named agent's are the workers'). */
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
 * Deterministic and sandbox-safe; an invalid config (or a bad combination of `config`, `agent`,
 * `overrides` and `agents`) fails your workflow with a non-retryable `AgentConfigError` naming the
 * fields, and a namespace without the runtime's search attributes (`npx durable-agents setup`
 * registers them) with a non-retryable `SearchAttributesMissing`, checked by a local activity of
 * the agent plugin before the child starts.
 *
 * A named agent (`agent`) is resolved by the child on its workers, which record its definition in
 * the child's history; `AgentName` is its name and `AgentVersion` its `name@version` once resolved.
 * When the workers do not define it (at that version) or refuse an override, the child fails and
 * this call throws a `ChildWorkflowFailure` whose `cause` is an `ApplicationFailure` of type
 * `AgentNotFound` (its message lists what the workers offer) or `AgentOverrideRefused`.
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
 *
 * // An agent the workers define, by name (and version or label):
 * const { output } = await runAgent({ agent: 'support@release-42', task: ticket });
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
  const child = validated(options);
  const name = child.kind === 'named' ? child.reference.name : child.config.name;
  const parent = workflowInfo();
  return {
    workflowId: options.workflowId ?? childWorkflowId(`${parent.workflowId}.agent-${name}-${uuid4().slice(0, 8)}`),
    ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}),
    parentClosePolicy: options.parentClosePolicy ?? ParentClosePolicy.REQUEST_CANCEL,
    staticSummary: `${name}: ${options.task.replace(/\s+/g, ' ').trim().slice(0, 100)}`,
    typedSearchAttributes: [
      { key: AgentNameAttribute, value: name },
      // A named run writes its `name@version` here once resolved (it does only when the attribute was set at start).
      ...(child.kind === 'named' ? [{ key: AgentVersionAttribute, value: name }] : []),
      { key: AgentStatusAttribute, value: 'running' },
      ...(child.kind === 'inline' && child.config.skill_sources.length > 0
        ? [{ key: AgentSkillSourcesAttribute, value: child.config.skill_sources }]
        : []),
    ],
    args: [
      {
        ...(child.kind === 'named'
          ? { agent: child.reference }
          : { config: child.config, ...(Object.keys(child.agents).length > 0 ? { agents: child.agents } : {}) }),
        task: options.task,
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

/** The child's agent: an inline config with its handoff agents, or a named agent the child's workers resolve. */
type ChildAgent = { kind: 'inline'; config: AgentConfig; agents: Record<string, AgentConfig> } | { kind: 'named'; reference: AgentReference };

/** The child's agent, validated; a bad one fails the workflow for good (retrying cannot fix it). */
function validated(options: RunAgentOptions): ChildAgent {
  try {
    assertRunTask(options.task);
    const refuse = (problem: string): never => {
      throw new AgentConfigError(`Invalid agent run options:\n  ${problem}`, [problem]);
    };
    const choiceProblem = agentChoiceProblem(options);
    if (choiceProblem) refuse(choiceProblem);
    if (options.concurrency) parseRunConcurrency(options.concurrency);
    if (options.agent !== undefined) {
      const reference = agentReferenceOf(options.agent, options.overrides);
      return 'problem' in reference ? refuse(reference.problem) : { kind: 'named', reference };
    }
    const config = absoluteSkillSources(parseAgentConfig(options.config));
    const agents = resolveHandoffAgents(config, options.agents ?? {}, absoluteSkillSources);
    const problems = resourceIdProblems([config, ...Object.values(agents)], options.resourceId);
    if (problems.length > 0) throw new AgentConfigError(`Invalid agent run options:\n  ${problems.join('\n  ')}`, problems);
    return { kind: 'inline', config, agents };
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
