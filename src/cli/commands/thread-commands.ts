// `thread send | show | list | close`: threads from the command line.
import { artifactStoreFromEnvironment } from '../../artifacts/artifact-store-from-environment';
import { describeCost } from '../../protocol/model-price';
import { AgentClient } from '../../client/agent-client';
import type { Message } from '../../protocol/messages';
import type { ThreadOptions } from '../../client/thread-handle';
import type { TurnHandle } from '../../client/turn-handle';
import { THREAD_LIST_STATUSES, type ThreadFilter } from '../../client/thread-list';
import { isDuration, parseDuration } from '../../config/duration';
import { loadAgentConfigFile, loadAgentDirectory } from '../../config/load-config';
import { AgentConfigError } from '../../protocol/errors';
import { THREAD_CLOSED_POLICIES, THREAD_POLICIES, type ThreadClosedPolicy, type ThreadPolicy, type TurnResult } from '../../protocol/thread-types';
import path from 'node:path';
import { followRun } from './run-command';

/** Options that create a thread (with `--config`) and steer one message. */
export interface ThreadSendOptions {
  config?: string;
  model?: string;
  agentsDir?: string;
  policy?: string;
  resource?: string;
  idleTimeout?: string;
  whenClosed?: string;
  messageId?: string;
  follow?: boolean;
  json?: boolean;
  taskQueue?: string;
}

/** The thread options from the command's flags (`--config` and friends), validated before anything is sent. */
export function threadOptionsOf(options: ThreadSendOptions): ThreadOptions {
  const policy = policyOf(options.policy);
  if (!options.config) return policy ? { policy } : {};
  const config = loadAgentConfigFile(options.config, { model: options.model });
  const agents = config.handoffs.length > 0 ? loadAgentDirectory(options.agentsDir ?? path.dirname(options.config)) : {};
  return {
    config,
    agents,
    ...(policy ? { policy } : {}),
    ...(options.resource ? { resourceId: options.resource } : {}),
    ...(options.idleTimeout ? { idleTimeout: options.idleTimeout } : {}),
    ...(options.whenClosed ? { whenClosed: closedPolicyOf(options.whenClosed) } : {}),
  };
}

function closedPolicyOf(policy: string): ThreadClosedPolicy {
  if (THREAD_CLOSED_POLICIES.includes(policy as ThreadClosedPolicy)) return policy as ThreadClosedPolicy;
  const problem = `--when-closed: must be one of ${THREAD_CLOSED_POLICIES.join(', ')}, not '${policy}'`;
  throw new AgentConfigError(problem, [problem]);
}

/** The filter from `thread list`'s flags, each checked (an AgentConfigError naming the flag: exit code 2). */
export function threadFilterOf(options: ThreadListOptions): ThreadFilter {
  const problems: string[] = [];
  const statuses: readonly string[] = THREAD_LIST_STATUSES;
  if (options.status !== undefined && !statuses.includes(options.status))
    problems.push(`--status: must be one of ${statuses.join(', ')}, not '${options.status}'`);
  if (options.idleFor !== undefined && !isDuration(options.idleFor))
    problems.push(`--idle-for: '${options.idleFor}' is not a duration such as 30m, 12h or 7d`);
  if (options.sort !== undefined && options.sort !== 'started' && options.sort !== 'last-activity')
    problems.push(`--sort: must be started or last-activity, not '${options.sort}'`);
  const limit = options.limit === undefined ? undefined : Number(options.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
    problems.push(`--limit: must be a whole number of at least 1, not '${options.limit}'`);
  if (problems.length > 0) throw new AgentConfigError(`Invalid thread list options:\n  ${problems.join('\n  ')}`, problems);
  return {
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.resource ? { resourceId: options.resource } : {}),
    ...(options.status ? { status: options.status as ThreadFilter['status'] } : {}),
    ...(options.idleFor ? { idleForMs: parseDuration(options.idleFor) } : {}),
    ...(options.sort ? { sort: options.sort as ThreadFilter['sort'] } : {}),
    ...(limit !== undefined ? { limit } : {}),
  };
}

function policyOf(policy: string | undefined): ThreadPolicy | undefined {
  if (policy === undefined) return undefined;
  if (THREAD_POLICIES.includes(policy as ThreadPolicy)) return policy as ThreadPolicy;
  const problem = `--policy: must be one of ${THREAD_POLICIES.join(', ')}, not '${policy}'`;
  throw new AgentConfigError(problem, [problem]);
}

/** `thread send THREAD TEXT`: sends a message (creating the thread with `--config`), prints its turn, and with `--follow` the answer. */
export async function threadSendCommand(threadId: string, text: string, options: ThreadSendOptions, agents?: AgentClient): Promise<void> {
  const threadOptions = threadOptionsOf(options);
  const client = agents ?? (await AgentClient.connect(undefined, { taskQueue: options.taskQueue }));
  try {
    const thread = client.thread(threadId, threadOptions);
    const turn = await thread.send(text, {
      ...(options.messageId ? { messageId: options.messageId } : {}),
      ...(threadOptions.policy ? { policy: threadOptions.policy } : {}),
    });
    if (!options.json) {
      console.log(
        `Message ${turn.receipt.messageId}: turn ${turn.turn} of thread ${threadId} (${turn.receipt.disposition}${turn.receipt.duplicate ? ', sent before' : ''})`,
      );
      if (thread.run.webUiUrl) console.log(`Web UI: ${thread.run.webUiUrl}`);
    }
    if (!options.follow) {
      if (options.json) console.log(JSON.stringify({ threadId, receipt: turn.receipt }));
      return;
    }
    const result = await followTurn(turn, Boolean(options.json));
    if (options.json) console.log(JSON.stringify({ threadId, receipt: turn.receipt, result }));
    else printTurnResult(result);
  } finally {
    if (!agents) await client.close();
  }
}

/** Follows a turn as `run --follow` follows a run: events, streamed text, then the result. */
export function followTurn(turn: TurnHandle, quiet: boolean, onEvent?: Parameters<typeof followRun>[3]): Promise<TurnResult> {
  return followRun<TurnResult>(turn, quiet, process.stdout, onEvent);
}

export function printTurnResult(result: TurnResult): void {
  const steps = result.lastStep - result.firstStep + 1;
  console.log('');
  console.log(
    `Turn ${result.turn} (${result.stopReason}, ${steps} step(s), ${result.usage.inputTokens} in / ${result.usage.outputTokens} out tokens, ${describeCost(result.usage)}):`,
  );
  console.log(result.structuredOutput !== undefined ? JSON.stringify(result.structuredOutput, null, 2) : result.output);
  if (result.stopDetail) console.log(`(${result.stopDetail})`);
}

/** `thread show THREAD`: phase, queue and the newest turns; `--messages`: the whole conversation. */
export async function threadShowCommand(threadId: string, options: { json?: boolean; messages?: boolean }, agents?: AgentClient): Promise<void> {
  const client = agents ?? (await AgentClient.connect(undefined, { artifacts: artifactStoreFromEnvironment() }));
  try {
    if (options.messages) return printMessages(await client.thread(threadId).messages(), Boolean(options.json));
    const status = await client.thread(threadId).status();
    if (options.json) return void console.log(JSON.stringify(status));
    console.log(
      `Thread ${threadId} (${status.agent}): ${status.phase}${status.closedReason ? ` (${status.closedReason})` : ''}, ${status.turnsCompleted} turn(s) answered`,
    );
    if (status.settings.resourceId) console.log(`Resource: ${status.settings.resourceId}`);
    if (status.currentTurn !== null) console.log(`Running: turn ${status.currentTurn}`);
    for (const queued of status.queued) console.log(`Queued for turn ${queued.turn}: ${queued.text}`);
    for (const turn of status.recentTurns) console.log(`\n#${turn.turn} (${turn.stopReason}) ${turn.output}`);
  } finally {
    if (!agents) await client.close();
  }
}

function printMessages(messages: Message[], json: boolean): void {
  if (json) return void console.log(JSON.stringify(messages));
  for (const message of messages) {
    const calls =
      message.role === 'assistant' && message.toolCalls?.length
        ? ` → ${message.toolCalls.map((call) => `${call.name}(${JSON.stringify(call.args)})`).join(', ')}`
        : '';
    const who = message.role === 'tool' ? `tool ${message.toolName}` : message.role;
    console.log(`[${who}] ${message.content}${calls}`);
  }
}

/** The flags of `thread list`, as commander gives them. */
export interface ThreadListOptions {
  agent?: string;
  resource?: string;
  status?: string;
  idleFor?: string;
  sort?: string;
  limit?: string;
  json?: boolean;
}

/** `thread list`: open threads (or closed ones), by agent, resource, status and idle time. */
export async function threadListCommand(options: ThreadListOptions, agents?: AgentClient): Promise<void> {
  const filter = threadFilterOf(options);
  const client = agents ?? (await AgentClient.connect());
  try {
    const threads = await client.listThreads(filter);
    if (options.json) return void console.log(JSON.stringify(threads));
    if (threads.length === 0) return void console.log('No threads.');
    for (const thread of threads) {
      const activity = thread.lastActivity ? `last active ${thread.lastActivity.toISOString()}` : 'last active -';
      console.log(
        `${thread.threadId}\t${thread.agent ?? '?'}\t${thread.status ?? '?'}\t${thread.resourceId ?? '-'}\t${activity}\tsince ${thread.startTime.toISOString()}`,
      );
    }
  } finally {
    if (!agents) await client.close();
  }
}

/** `thread close THREAD`: closes it after its running and queued turns. */
export async function threadCloseCommand(threadId: string, options: { reason?: string }, agents?: AgentClient): Promise<void> {
  const client = agents ?? (await AgentClient.connect());
  try {
    const { turnsCompleted } = await client.thread(threadId).close(options.reason);
    console.log(`Thread ${threadId} closes after its running and queued turns (${turnsCompleted} answered so far).`);
  } finally {
    if (!agents) await client.close();
  }
}

/** `thread delete THREAD`: ends it if open, deletes its artifacts, then its workflow executions. */
export async function threadDeleteCommand(threadId: string, options: { json?: boolean }, agents?: AgentClient): Promise<void> {
  const client = agents ?? (await AgentClient.connect(undefined, { artifacts: artifactStoreFromEnvironment() }));
  try {
    const deleted = await client.thread(threadId).delete();
    if (options.json) return void console.log(JSON.stringify(deleted));
    console.log(`Deleted thread ${threadId}: ${deleted.artifacts} artifact(s), ${deleted.workflowExecutions} workflow execution(s).`);
  } finally {
    if (!agents) await client.close();
  }
}
