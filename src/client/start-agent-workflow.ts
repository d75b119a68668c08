// Starting an `agentRun` workflow for the library's own callers (startRun, fork, evaluation).
import type { Priority, SearchAttributePair } from '@temporalio/common';
import type { AgentRunWorkflowInput } from '../protocol/run-types';
import {
  AgentCostUsdAttribute,
  AgentNameAttribute,
  AgentSkillSourcesAttribute,
  AgentStatusAttribute,
  AgentVersionAttribute,
} from '../protocol/search-attributes';
import { WireName } from '../protocol/wire-names';
import type { agentRun } from '../workflows/run/agent-run';
import type { AgentClient } from './agent-client';
import { assertInputFits } from './outgoing-checks';
import { RunHandle } from './run-handle';
import { searchAttributesMissing } from './search-attribute-errors';

/** How one run is started: its id, what the Web UI shows of it, and search attributes beyond the run's own. */
export interface AgentWorkflowStart {
  workflowId: string;
  /** The Web UI's one-line summary. */
  summary: string;
  /** The Web UI's details (Markdown). */
  details?: string;
  attributes?: SearchAttributePair[];
  /** Temporal's priority of the run (its activities inherit it; provider limiters read it). */
  priority?: Priority;
  /** The run's memo (returned with it by `workflow.list` and `describe`; not searchable). */
  memo?: Record<string, unknown>;
}

/**
 * Starts an `agentRun` workflow on the client's task queue with the run's search attributes (and
 * `options.attributes`) and the Web UI's summary and details. The input may carry what only the
 * runtime sets (a fork's origin, an evaluation's recorded run), which is why this is not a method
 * users see on `AgentClient`.
 * @throws SearchAttributesMissingError when the namespace lacks the runtime's search attributes;
 * PayloadTooLargeError, before anything is sent, for an input over one payload (1 MB of JSON).
 */
export async function startAgentWorkflow(agents: AgentClient, input: AgentRunWorkflowInput, options: AgentWorkflowStart): Promise<RunHandle> {
  assertInputFits('a run', input);
  const { config, agent } = input;
  const handle = await agents.temporal.workflow
    .start<typeof agentRun>(WireName.agentRunWorkflow, {
      workflowId: options.workflowId,
      taskQueue: agents.taskQueue,
      args: [input],
      staticSummary: options.summary,
      ...(options.details ? { staticDetails: options.details } : {}),
      ...(options.memo ? { memo: options.memo } : {}),
      typedSearchAttributes: [
        { key: AgentNameAttribute, value: config?.name ?? agent!.name },
        // A named run writes its version here once resolved; the name now makes a namespace without the attribute refuse the start.
        ...(agent ? [{ key: AgentVersionAttribute, value: agent.name }] : []),
        { key: AgentStatusAttribute, value: 'running' },
        // The run keeps its cost here (it writes it only when the starter set it: docs/observability.md).
        { key: AgentCostUsdAttribute, value: 0 },
        ...(config && config.skill_sources.length > 0 ? [{ key: AgentSkillSourcesAttribute, value: config.skill_sources }] : []),
        ...(options.attributes ?? []),
      ],
      requestEagerStart: agents.eagerStart,
      ...(options.priority ? { priority: options.priority } : {}),
    })
    .catch((error: unknown) => {
      // A namespace that never had `durable-agents setup` refuses the run's search attributes.
      throw searchAttributesMissing(error, agents.namespace) ?? error;
    });
  return new RunHandle(agents.temporal, handle, agents.runUrl(handle.workflowId, handle.firstExecutionRunId));
}
