// What a schedule's fires start: an agent run, or a post into a thread; checked and built before anything is sent.
import type { ScheduleOptionsAction } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { parseAgentText, agentVersionText, type AgentReference } from '../../protocol/agent-reference';
import { AgentRuntimeError } from '../../protocol/errors';
import { assertRunTask } from '../../protocol/run-task';
import type { AgentRunInput } from '../../protocol/run-types';
import { ScheduleInvalidError } from '../../protocol/schedule-errors';
import type { ScheduledThreadPostInput } from '../../protocol/schedule-types';
import { AgentCostUsdAttribute, AgentNameAttribute, AgentSkillSourcesAttribute, AgentStatusAttribute } from '../../protocol/search-attributes';
import { WireName } from '../../protocol/wire-names';
import { truncate } from '../../history/history-render';
import { assertInputFits, checkedThreadMessage } from '../outgoing-checks';
import { prepareAgents } from '../prepared-agents';
import { threadCreation } from '../thread-creation';
import type { ScheduleActionSummary, ScheduledRunAction, ScheduledThreadAction, ScheduleAction } from './schedule-options';

/** Temporal's action of a schedule and the summary kept in its memo (what `list` shows of it). */
export interface BuiltScheduleAction {
  action: ScheduleOptionsAction;
  summary: ScheduleActionSummary;
}

/**
 * Temporal's start-workflow action for `action` on `taskQueue`; fires are named
 * `<scheduleId>-<time of the fire>` by Temporal.
 * @throws ScheduleInvalidError naming the field (`action.kind`, `action.task`, `action.config`,
 * `action.agent`, `action.threadId`, `action.text`) when the action could not start.
 */
export function scheduleActionOf(scheduleId: string, taskQueue: string, action: ScheduleAction): BuiltScheduleAction {
  if (action === null || typeof action !== 'object')
    throw new ScheduleInvalidError('action', "must be { kind: 'run', ... } or { kind: 'thread', ... }");
  if (action.kind === 'run') return runAction(scheduleId, taskQueue, action);
  if (action.kind === 'thread') return threadAction(scheduleId, taskQueue, action);
  throw new ScheduleInvalidError('action.kind', `must be 'run' or 'thread', not ${JSON.stringify((action as { kind?: unknown }).kind)}`);
}

function runAction(scheduleId: string, taskQueue: string, action: ScheduledRunAction): BuiltScheduleAction {
  refusedAs('action.task', () => assertRunTask(action.task));
  if ((action.config === undefined) === (action.agent === undefined))
    throw new ScheduleInvalidError('action.config', 'give exactly one of action.config (an inline agent) and action.agent (a named one)');
  const common = {
    task: action.task,
    ...(action.resourceId !== undefined ? { resourceId: action.resourceId } : {}),
    ...(action.timeouts ? { timeouts: action.timeouts } : {}),
  };
  // A run started by name has no config: the workers resolve `agent` at each fire (docs/agents.md).
  let input: AgentRunInput;
  let name: string;
  let attributes: SearchAttributePair[] = [];
  if (action.config !== undefined) {
    const { config, agents } = refusedAs('action.config', () => prepareAgents(action.config!, action.agents, action.resourceId, 'run'));
    input = { config, ...common, ...(Object.keys(agents).length > 0 ? { agents } : {}) };
    name = config.name;
    if (config.skill_sources.length > 0) attributes = [{ key: AgentSkillSourcesAttribute, value: config.skill_sources }];
  } else {
    const reference = referenceOf(action.agent!);
    input = { agent: reference, ...common };
    name = reference.name;
  }
  refusedAs('action', () => assertInputFits('a run', input));
  const agent = action.config !== undefined ? name : agentVersionText(referenceOf(action.agent!));
  return {
    action: {
      type: 'startWorkflow',
      workflowType: WireName.agentRunWorkflow,
      workflowId: scheduleId,
      taskQueue,
      args: [input],
      staticSummary: `schedule ${scheduleId}: ${name}: ${oneLine(action.task, 100)}`,
      typedSearchAttributes: [
        { key: AgentNameAttribute, value: name },
        { key: AgentStatusAttribute, value: 'running' },
        { key: AgentCostUsdAttribute, value: 0 },
        ...attributes,
      ],
    },
    summary: { kind: 'run', workflowType: WireName.agentRunWorkflow, agent, task: oneLine(action.task, 200) },
  };
}

function threadAction(scheduleId: string, taskQueue: string, action: ScheduledThreadAction): BuiltScheduleAction {
  if (typeof action.threadId !== 'string' || !/\S/.test(action.threadId) || action.threadId.length > 200)
    throw new ScheduleInvalidError('action.threadId', `must be a thread id of 1 to 200 characters, not ${JSON.stringify(action.threadId)}`);
  refusedAs('action.text', () => checkedThreadMessage({ messageId: `scheduled:${scheduleId}`, text: action.text }));
  if (action.config !== undefined && action.agent !== undefined)
    throw new ScheduleInvalidError('action.agent', 'give the thread an inline action.config or a named action.agent, not both');
  const creation =
    action.config === undefined && action.agent === undefined
      ? undefined
      : refusedAs(action.agent !== undefined ? 'action.agent' : 'action.config', () =>
          threadCreation({
            ...(action.agent !== undefined ? { agent: referenceOf(action.agent) } : { config: action.config! }),
            ...(action.agents ? { agents: action.agents } : {}),
            ...(action.resourceId ? { resourceId: action.resourceId } : {}),
          }),
        );
  const input: ScheduledThreadPostInput = {
    threadId: action.threadId,
    text: action.text,
    ...(creation
      ? {
          configHash: creation.input.configHash,
          ...(creation.parsedConfigHash ? { parsedConfigHash: creation.parsedConfigHash } : {}),
          creation: { input: creation.input, resourceId: action.resourceId ?? null },
        }
      : {}),
  };
  refusedAs('action', () => assertInputFits('a thread', input));
  return {
    action: {
      type: 'startWorkflow',
      workflowType: WireName.scheduledThreadPostWorkflow,
      workflowId: scheduleId,
      taskQueue,
      args: [input],
      staticSummary: `schedule ${scheduleId}: post to thread ${action.threadId}`,
    },
    summary: {
      kind: 'thread',
      workflowType: WireName.scheduledThreadPostWorkflow,
      threadId: action.threadId,
      text: oneLine(action.text, 200),
      ...(creation ? { agent: creation.agentName } : {}),
    },
  };
}

/** `support`, `support@r1` or `{ name, version?, overrides? }` as a reference. @throws ScheduleInvalidError (`action.agent`). */
function referenceOf(agent: string | AgentReference): AgentReference {
  const reference = typeof agent === 'string' ? parseAgentText(agent) : agent;
  if (!reference || typeof reference.name !== 'string' || !reference.name.trim())
    throw new ScheduleInvalidError(
      'action.agent',
      `must be an agent name (support, support@3f2a9c0d1b7e, support@release-42), not ${JSON.stringify(agent)}`,
    );
  return reference;
}

/** Runs a check of the runtime's, giving its refusal as a schedule's (`field`), so one code says a schedule was refused. */
function refusedAs<T>(field: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof AgentRuntimeError) throw new ScheduleInvalidError(field, error.message.replace(/^(task|text): /, ''));
    throw error;
  }
}

function oneLine(text: string, max: number): string {
  return truncate(text.replace(/\s+/g, ' ').trim(), max);
}
