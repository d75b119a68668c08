import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Custom search attributes of agent runs. The dev server registers them at start
// (`--search-attribute`), clusters through `registerSearchAttributes` (`durable-agents setup`).
// Safe in the workflow sandbox. (A line comment: a doc block here would join AgentNameAttribute's.)

/**
 * The name of the agent a run is running (Keyword). Set at start; a handoff changes it to the
 * agent that took over.
 * @example
 * import { AgentNameAttribute } from 'durable-agents/workflow';
 *
 * for await (const run of client.workflow.list({ query: `${AgentNameAttribute.name} = 'support' AND ExecutionStatus = 'Running'` })) {
 *   console.log(run.workflowId);
 * }
 */
export const AgentNameAttribute = defineSearchAttributeKey('AgentName', SearchAttributeType.KEYWORD);

/**
 * Where a run stands (Keyword): `running`, `awaiting_approval` (a gated tool call waits for a
 * human) or `completed`. A failed or terminated run keeps its last value: combine it with
 * `ExecutionStatus`.
 * @example
 * import { AgentStatusAttribute } from 'durable-agents/workflow';
 *
 * const query = `${AgentStatusAttribute.name} = 'awaiting_approval' AND ExecutionStatus = 'Running'`;
 * const { count } = await client.workflow.count(query);
 */
export const AgentStatusAttribute = defineSearchAttributeKey('AgentStatus', SearchAttributeType.KEYWORD);

/**
 * The skill sources a run follows (KeywordList): the watcher process finds runs to signal with it.
 * Set only on runs whose config has `skill_sources`.
 * @example
 * import { AgentSkillSourcesAttribute } from 'durable-agents/workflow';
 *
 * const query = `${AgentSkillSourcesAttribute.name} = '/srv/skills' AND ExecutionStatus = 'Running'`;
 * for await (const run of client.workflow.list({ query })) console.log(run.workflowId);
 */
export const AgentSkillSourcesAttribute = defineSearchAttributeKey('AgentSkillSources', SearchAttributeType.KEYWORD_LIST);

/**
 * The workflow id of the run a fork was made from (Keyword): set at the start of every run that
 * `AgentClient.fork` (`durable-agents fork`) starts. Lists a run's forks.
 * @example
 * import { AgentForkOfAttribute } from 'durable-agents/workflow';
 *
 * for await (const fork of client.workflow.list({ query: `${AgentForkOfAttribute.name} = 'support-1a2b3c4d'` })) {
 *   console.log(fork.workflowId);
 * }
 */
export const AgentForkOfAttribute = defineSearchAttributeKey('AgentForkOf', SearchAttributeType.KEYWORD);

/**
 * The evaluation a replay-evaluation run belongs to (Keyword): set at the start of every run that
 * `evaluateRuns` (`durable-agents eval`) starts, so evaluation runs are told apart from production
 * runs (`AgentEvaluation IS NULL` lists the latter).
 * @example
 * import { AgentEvaluationAttribute } from 'durable-agents/workflow';
 *
 * const { count } = await client.workflow.count(`${AgentEvaluationAttribute.name} = 'eval-20261123-1a2b'`);
 */
export const AgentEvaluationAttribute = defineSearchAttributeKey('AgentEvaluation', SearchAttributeType.KEYWORD);

/**
 * The resource a thread (or run) belongs to (Keyword): a user, a team, a customer, as the caller
 * named it when it created the thread. Lists a user's threads.
 * @example
 * import { AgentResourceAttribute } from 'durable-agents/workflow';
 *
 * for await (const thread of client.workflow.list({ query: `${AgentResourceAttribute.name} = 'user:42'` })) {
 *   console.log(thread.workflowId);
 * }
 */
export const AgentResourceAttribute = defineSearchAttributeKey('AgentResource', SearchAttributeType.KEYWORD);

/**
 * What a run (thread) has cost so far in USD (Double): its priced model calls, its sub-agents' and
 * the executions it continues included. Written when an execution closes or continues (a thread:
 * after each turn), on runs whose client set it at start (`AgentClient` sets 0). Finds expensive runs.
 * @example
 * import { AgentCostUsdAttribute } from 'durable-agents/workflow';
 *
 * for await (const run of client.workflow.list({ query: `${AgentCostUsdAttribute.name} > 1` })) console.log(run.workflowId);
 */
export const AgentCostUsdAttribute = defineSearchAttributeKey('AgentCostUsd', SearchAttributeType.DOUBLE);

/**
 * When a thread last received a message or finished a turn (Datetime, the workflow's clock): finds
 * stale threads. Set on threads only (runs leave it unset); threads created before it existed lack
 * it (`AgentLastActivity IS NULL`).
 * @example
 * import { AgentLastActivityAttribute } from 'durable-agents/workflow';
 *
 * const query = `WorkflowType = 'agentThread' AND ExecutionStatus = 'Running' AND ${AgentLastActivityAttribute.name} < '2026-10-01T00:00:00Z'`;
 * for await (const thread of client.workflow.list({ query })) console.log(thread.workflowId);
 */
export const AgentLastActivityAttribute = defineSearchAttributeKey('AgentLastActivity', SearchAttributeType.DATETIME);

/**
 * The named agent a run or thread answers with (Keyword): `support@3f2a9c0d1b7e`, its name and the
 * version (content hash) the workers resolved (docs/agents.md). The client sets the name at start;
 * the run sets the version once resolved, a thread at each turn that changes it. Unset on runs
 * with an inline config.
 * @example
 * import { AgentVersionAttribute } from 'durable-agents/workflow';
 *
 * const { count } = await client.workflow.count(`${AgentVersionAttribute.name} = 'support@3f2a9c0d1b7e' AND ExecutionStatus = 'Running'`);
 */
export const AgentVersionAttribute = defineSearchAttributeKey('AgentVersion', SearchAttributeType.KEYWORD);

/**
 * Every search attribute of agent runs, as keys: give them to a test server when it starts, so runs
 * can start there (a plain dev server lacks them and refuses the run with
 * `SearchAttributesMissingError`).
 * @example
 * import { TestWorkflowEnvironment } from '@temporalio/testing';
 * import { agentSearchAttributes } from 'durable-agents/testing';
 *
 * const environment = await TestWorkflowEnvironment.createLocal({ server: { searchAttributes: [...agentSearchAttributes] } });
 */
export const agentSearchAttributes = [
  AgentNameAttribute,
  AgentStatusAttribute,
  AgentSkillSourcesAttribute,
  AgentForkOfAttribute,
  AgentEvaluationAttribute,
  AgentResourceAttribute,
  AgentCostUsdAttribute,
  AgentLastActivityAttribute,
  AgentVersionAttribute,
] as const;

/** Name and type of each attribute, for registration (the same list as `agentSearchAttributes`). */
export const AGENT_SEARCH_ATTRIBUTES: ReadonlyArray<{ name: string; type: 'Keyword' | 'KeywordList' | 'Double' | 'Datetime' }> =
  agentSearchAttributes.map((key) => ({
    name: key.name,
    type:
      key.type === SearchAttributeType.KEYWORD_LIST
        ? 'KeywordList'
        : key.type === SearchAttributeType.DOUBLE
          ? 'Double'
          : key.type === SearchAttributeType.DATETIME
            ? 'Datetime'
            : 'Keyword',
  }));
