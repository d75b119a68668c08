// What crosses MCP for one agent tool call: its arguments checked before anything reaches Temporal, and a run's or turn's end as a tool result.
import { ErrorCode as McpErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { WorkflowFailedError } from '@temporalio/client';
import { z } from 'zod';
import { MessageLimits } from '../protocol/message-validation';
import type { AgentRunResult } from '../protocol/run-types';
import type { TurnResult } from '../protocol/thread-types';
import { objectSchemaOf, type AgentTool } from './agent-tool-catalog';

const toolArguments = z.strictObject({
  task: z.string().min(1, 'must not be empty').max(MessageLimits.injectedText, `must be at most ${MessageLimits.injectedText} characters`),
  threadId: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^\s]+$/, 'must have no spaces')
    .optional(),
});

/** A call's checked arguments. */
export type AgentToolArguments = z.output<typeof toolArguments>;

/**
 * The arguments of a call to an agent tool.
 * @throws McpError -32602 (invalid params) naming the first field refused: nothing is started.
 */
export function checkedArguments(tool: string, raw: unknown): AgentToolArguments {
  const parsed = toolArguments.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const field = [...issue.path.map(String), ...keys.slice(0, 1)].join('.') || 'arguments';
  throw new McpError(McpErrorCode.InvalidParams, `${tool}: arguments.${field}: ${issue.message}`, { field });
}

/** A tool error (`isError`): the call ran and failed, so the model calling the tool can read why. */
export function toolError(text: string, meta: Record<string, unknown> = {}): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true, _meta: { 'durable-agents/ids': meta } };
}

/**
 * The end of a run or turn as a tool result: the answer as text, `structuredContent` when the agent
 * answers structured. A stop short of an answer (`max_steps`, a budget) is still a result, with the
 * stop reason; an agent with an output schema that gave no structured answer is a tool error, since
 * MCP clients refuse a result without the content the schema promises.
 */
export function answerResult(tool: AgentTool, result: AgentRunResult | TurnResult, ids: Record<string, unknown>): CallToolResult {
  const meta = { 'durable-agents/ids': ids, 'durable-agents/stopReason': result.stopReason };
  const structured = result.structuredOutput;
  const promised = objectSchemaOf(tool.offer.outputType) !== null;
  if (result.stopReason === 'failed' || (promised && (structured === null || typeof structured !== 'object'))) {
    const why = result.stopDetail ?? ('failure' in result && result.failure ? result.failure.message : `stopped: ${result.stopReason}`);
    return { content: [{ type: 'text', text: result.output || why }], isError: true, _meta: meta };
  }
  const stopped = result.stopReason === 'completed' ? '' : `\n\n(stopped: ${result.stopReason}${result.stopDetail ? `, ${result.stopDetail}` : ''})`;
  return {
    content: [{ type: 'text', text: `${result.output}${stopped}` }],
    ...(promised ? { structuredContent: structured as Record<string, unknown> } : {}),
    _meta: meta,
  };
}

/** A run that ended without a result (failed, cancelled, terminated, timed out) as a tool error naming how. */
export function endedResult(error: unknown, ids: Record<string, unknown>): CallToolResult {
  if (!(error instanceof WorkflowFailedError)) throw error;
  const cause = error.cause as { type?: string; message?: string; name?: string } | undefined;
  const code = cause?.type ?? cause?.name ?? 'WorkflowFailed';
  return toolError(`The run ended without an answer (${code}): ${cause?.message ?? error.message}`, { ...ids, error: code });
}
