// One live call of an agent tool: a run (or a thread's turn) started, its events as progress notes, its approvals elicited, its end as the result.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, McpError, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RunHandle } from '../client/run-handle';
import type { TurnHandle } from '../client/turn-handle';
import { requireScope } from '../gateway/gateway-auth';
import { GatewayError } from '../gateway/gateway-errors';
import type { FeedRegistry } from '../gateway/streams/feed-registry';
import type { RunEvent } from '../protocol/run-events';
import type { AgentTool } from './agent-tool-catalog';
import { answerResult, endedResult, toolError, type AgentToolArguments } from './agent-tool-results';
import { ElicitedApprovals, type DeciderContext } from './elicited-approvals';

/** The handler's view of one `tools/call`: its signal, progress token and the way back to the client. */
export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What a call needs besides its arguments. */
export interface AgentCallContext extends DeciderContext {
  server: Server;
  /** Whether approvals are put to this client (it declared elicitation and the principal has `approve`). */
  elicits: boolean;
  /**
   * The gateway's shared feeds: calls follow their run or thread through them, so many calls (and
   * the gateway's other streams) on one workflow cost Temporal one reader. Absent (the stdio door,
   * no gateway): each call follows with the library's `events()`.
   */
  feeds?: FeedRegistry;
}

/**
 * Runs one call to its end: a new run of the agent, or (with `threadId`) the next turn of that
 * thread. The call stays open while the run waits for an approval, wherever it is decided. The
 * client's cancellation cancels the run (a turn is left to finish: the thread is the caller's to close).
 */
export async function callAgentTool(context: AgentCallContext, tool: AgentTool, args: AgentToolArguments, extra: CallExtra): Promise<CallToolResult> {
  try {
    requireScope(context.principal, args.threadId === undefined ? 'start' : 'send');
  } catch (error) {
    if (error instanceof GatewayError) return toolError(error.message, { error: error.code });
    throw error;
  }
  if (args.threadId !== undefined) return callTurn(context, tool, args.threadId, args.task, extra);
  const run = await context.agents.startRun({ agent: tool.offer.name, task: args.task });
  const ids = { workflowId: run.workflowId };
  const cancel = () => void run.workflow.cancel().catch(() => undefined);
  extra.signal.addEventListener('abort', cancel, { once: true });
  try {
    const events = (signal: AbortSignal) => (context.feeds ? feedEvents(context.feeds, run.workflowId, 0, signal) : run.events({ signal }));
    await follow(context, tool, run, events, extra, `run ${run.workflowId} started`);
    if (extra.signal.aborted) return toolError('Cancelled by the client: the run was cancelled', ids);
    return answerResult(tool, await run.result(), ids);
  } catch (error) {
    return endedResult(error, ids);
  } finally {
    extra.signal.removeEventListener('abort', cancel);
  }
}

async function callTurn(context: AgentCallContext, tool: AgentTool, threadId: string, task: string, extra: CallExtra): Promise<CallToolResult> {
  const existing = await context.agents
    .thread(threadId)
    .status()
    .catch(() => null);
  if (existing && existing.agent !== tool.offer.name)
    return toolError(`threadId: thread '${threadId}' talks to agent '${existing.agent}', not '${tool.offer.name}'`, { threadId });
  const turn: TurnHandle = await context.agents.thread(threadId, { agent: tool.offer.name }).send(task);
  const events = (signal: AbortSignal) =>
    context.feeds ? turn.eventsOf(feedEvents(context.feeds, turn.thread.workflowId, turn.receipt.eventCursor, signal)) : turn.events({ signal });
  await follow(context, tool, turn.thread, events, extra, `turn ${turn.turn} of thread ${threadId} accepted`);
  const ids = { threadId, turn: turn.turn };
  if (extra.signal.aborted) return toolError('Cancelled by the client: the turn goes on in its thread', ids);
  return answerResult(tool, await turn.result(), ids);
}

/**
 * Follows the events to the end of the run or turn: each step and tool call a progress note (when
 * the client sent a progress token), each approval an elicitation (when the client takes them).
 * @throws McpError when the client answers an elicitation outside its schema (nothing is decided).
 */
async function follow(
  context: AgentCallContext,
  tool: AgentTool,
  run: RunHandle,
  eventsUntil: (signal: AbortSignal) => AsyncGenerator<RunEvent>,
  extra: CallExtra,
  firstNote: string,
): Promise<void> {
  const note = progressNotes(extra);
  note(firstNote);
  // Stops reading events when the client cancels or answers an elicitation outside its schema.
  const stop = new AbortController();
  const stopOnCancel = () => stop.abort();
  extra.signal.addEventListener('abort', stopOnCancel, { once: true });
  let refused: McpError | null = null;
  const approvals = new ElicitedApprovals(context.server, context, run.workflowId, extra.requestId, (outcome) => {
    if (outcome.kind !== 'invalid') return note(outcome.note);
    refused ??= outcome.error;
    stop.abort();
  });
  try {
    for await (const event of eventsUntil(stop.signal)) {
      const text = describe(event);
      if (text) note(text);
      if (event.type === 'approval-requested' && context.elicits) approvals.ask(tool.offer.name, event.request);
      if (event.type === 'approval-decided') approvals.withdraw(event.approvalId);
    }
  } finally {
    approvals.close();
    extra.signal.removeEventListener('abort', stopOnCancel);
  }
  if (refused) throw refused as McpError;
}

/** The logged events of `workflowId` after `fromSeq` from the gateway's shared feed (its live text is not for progress notes). */
async function* feedEvents(feeds: FeedRegistry, workflowId: string, fromSeq: number, signal: AbortSignal): AsyncGenerator<RunEvent> {
  for await (const item of feeds.follow(workflowId, fromSeq, signal)) if (item.kind === 'event') yield item.event;
}

/** Sends progress notes for the call's progress token, numbered in order; a no-op without a token. */
function progressNotes(extra: CallExtra): (message: string) => void {
  const token = extra._meta?.progressToken;
  let progress = 0;
  return (message) => {
    if (token === undefined || extra.signal.aborted) return;
    progress += 1;
    void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } }).catch(() => undefined);
  };
}

/** What a progress note says of an event; null for events a caller need not hear of. */
function describe(event: RunEvent): string | null {
  switch (event.type) {
    case 'status-changed':
      return event.phase === 'model' ? `step ${event.step}: thinking` : null;
    case 'tool-called':
      return `step ${event.step}: calling ${event.call.name}`;
    case 'tool-completed':
      return `step ${event.step}: ${event.toolName} ${event.isError ? 'failed' : 'done'}`;
    case 'approval-requested':
      return `waiting for approval ${event.request.approvalId} (${event.request.toolName})`;
    case 'approval-decided':
      return `approval ${event.approvalId} ${event.outcome.replace('_', ' ')}${event.decidedBy ? ` by ${event.decidedBy}` : ''}`;
    case 'handoff':
      return `handed off from ${event.from} to ${event.to}`;
    case 'mcp-progress':
      return `${event.toolName}: ${event.progress.message ?? `${event.progress.progress}${event.progress.total ? `/${event.progress.total}` : ''}`}`;
    default:
      return null;
  }
}
