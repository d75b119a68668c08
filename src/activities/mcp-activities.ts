import { cutToLimit } from '../protocol/payload-size';
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpServerConfig } from '../config/agent-config';
import { ErrorCode } from '../protocol/errors';
import type { ToolSpec } from '../protocol/messages';
import { mcpToolName } from '../protocol/mcp-tool-names';
import type { McpToolCallInput, McpToolListing, ToolResult } from '../protocol/run-types';
import { splitInjectedArgs } from '../protocol/split-injected-args';
import { buildToolResult } from '../protocol/tool-results';
import { unverifiedApprovalRefusal, type VerifiedApprovalsDependencies } from './verified-approvals';
import type { McpConnections } from '../mcp/mcp-connections';
import { LiveHeartbeat, withHeartbeat } from './heartbeat';
import { ProgressReporter } from './progress-reporter';
import { rethrowIfWorkerShutdown } from './worker-shutdown';
import type { HookRunner } from '../hooks/hook-runner';
import { runToolHooks } from './tool-hooks';
import { NO_TELEMETRY, type AgentTelemetry } from '../telemetry/agent-telemetry';

export interface McpDependencies extends VerifiedApprovalsDependencies {
  mcp: McpConnections;
  /** The worker's lifecycle hooks: after-tool and error hooks run on MCP results too. */
  hooks?: HookRunner;
  /** Spans and metrics of tool calls (`execute_tool {name}`). Default: none. */
  telemetry?: AgentTelemetry;
}

/**
 * MCP tools through the official TypeScript SDK: listing (namespaced `<server>__<tool>`) and
 * calling. A server that is down is reported, never thrown: its tools are missing from the
 * listing, and a call to it is an error result the model sees.
 */
export function createMcpActivities(dependencies: McpDependencies) {
  const activities = {
    async listMcpTools(servers: McpServerConfig[]): Promise<McpToolListing> {
      const listing: McpToolListing = { tools: [], unavailable: [] };
      for (const server of servers) {
        try {
          const client = await dependencies.mcp.client(server);
          const { tools } = await client.listTools();
          listing.tools.push(
            ...tools.map((tool): ToolSpec & { server: string; mcpName: string } => ({
              name: mcpToolName(server.name, tool.name),
              description: tool.description ?? `${tool.name} (MCP server ${server.name})`,
              parameters: tool.inputSchema as ToolSpec['parameters'],
              server: server.name,
              mcpName: tool.name,
            })),
          );
        } catch (error) {
          await dependencies.mcp.discard(server);
          listing.unavailable.push({ server: server.name, error: error instanceof Error ? error.message : String(error) });
        }
      }
      return listing;
    },

    async callMcpTool(input: McpToolCallInput): Promise<ToolResult> {
      const activity = Context.current();
      const startedAt = Date.now();
      const { executable, injected } = splitInjectedArgs(input.call.args, input.injectedArgNames);
      const live = new LiveHeartbeat(activity);
      const progress = new ProgressReporter(live, {
        step: input.step,
        callId: input.call.id,
        toolName: input.call.name,
        quiet: Boolean(input.quietProgress),
      });
      const finish = async (content: string, isError: boolean, errorCode: string = ErrorCode.toolFailed): Promise<ToolResult> => {
        // The hooks see the server's answer before it is recorded (and may redact it).
        const { hookFailures, ...outcome } = await runToolHooks(dependencies.hooks, input, activity.info.attempt, {
          content,
          ...(isError ? { errorCode } : {}),
        });
        return {
          ...buildToolResult({
            call: input.call,
            step: input.step,
            content: outcome.content,
            startedAt,
            completedAt: Date.now(),
            errorCode: outcome.errorCode,
            approvalId: input.approvalId,
            injectedArgs: injected,
          }),
          ...(progress.notes.length > 0 ? { progress: progress.notes } : {}),
          ...(hookFailures ? { hookFailures } : {}),
        };
      };
      const unverified = unverifiedApprovalRefusal(dependencies, input);
      if (unverified !== null) return finish(unverified, true, ErrorCode.decisionUnverified);
      const silence = new SilenceLimit(MCP_SILENCE_LIMIT_MS);
      let stopListening = async () => {};
      try {
        const client = await dependencies.mcp.client(input.server);
        const progressToken = randomUUID();
        stopListening = ProgressRouter.of(client).listen(progressToken, (note) => {
          silence.reset();
          progress.report(note.progress, note.total, note.message);
        });
        // Heartbeats keep a long call alive (the activity has a heartbeat timeout) and carry its progress.
        const result = await withHeartbeat(
          () =>
            client.callTool({ name: input.mcpName, arguments: executable, _meta: { progressToken } }, undefined, {
              signal: AbortSignal.any([activity.cancellationSignal, silence.signal]),
              // The silence limit ends a call that stopped answering; the activity's own timeout, one that never ends.
              timeout: activity.info.startToCloseTimeoutMs,
            }),
          live,
        );
        await stopListening();
        const text = (result.content as Array<{ type: string; text?: string }>)
          .map((part) => (part.type === 'text' ? (part.text ?? '') : JSON.stringify(part)))
          .join('\n');
        return await finish(cutToLimit(result.isError ? `Error: ${text}` : text), Boolean(result.isError));
      } catch (error) {
        await stopListening();
        rethrowIfWorkerShutdown(`MCP tool '${input.mcpName}' of server '${input.server.name}'`);
        await dependencies.mcp.discard(input.server);
        return await finish(
          `Error: MCP server '${input.server.name}' could not run '${input.mcpName}': ${error instanceof Error ? error.message : String(error)}`,
          true,
        );
      } finally {
        silence.stop();
      }
    },
  };
  const telemetry = dependencies.telemetry ?? NO_TELEMETRY;
  return {
    ...activities,
    // The same execute_tool span and tool metrics as the worker's own tools.
    callMcpTool: (input: McpToolCallInput): Promise<ToolResult> =>
      telemetry.toolCall({ call: input.call, step: input.step, attempt: Context.current().info.attempt }, () => activities.callMcpTool(input)),
  };
}

/** A call with neither an answer nor a progress note for this long ends as an error result. */
const MCP_SILENCE_LIMIT_MS = 60_000;

interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
}

/**
 * The progress notifications of one MCP client, routed to their call by our own progress token.
 * The SDK's own routing loses notes: it runs a notification's handler a microtask after the
 * message arrives but handles a response at once, forgetting the call's progress handler; so the
 * notes that arrive in the same read as the result (the last one of a server that reports and
 * returns at once, or all of them on a busy worker) were dropped. Here a call keeps its listener
 * until its result is taken and one more turn of the event loop has passed.
 */
class ProgressRouter {
  private static readonly routers = new WeakMap<Client, ProgressRouter>();
  private readonly listeners = new Map<string, (note: ProgressParams) => void>();

  static of(client: Client): ProgressRouter {
    let router = ProgressRouter.routers.get(client);
    if (!router) {
      router = new ProgressRouter();
      // Loaded here, not at the top: a worker whose agents name no MCP server never loads the SDK.
      const { ProgressNotificationSchema } = require('@modelcontextprotocol/sdk/types.js') as typeof import('@modelcontextprotocol/sdk/types.js');
      const routing = router;
      client.setNotificationHandler(ProgressNotificationSchema, (notification) => routing.route(notification.params));
      ProgressRouter.routers.set(client, router);
    }
    return router;
  }

  /** Sends the notes of `token` to `listener`; the returned function stops (after late notes are in). */
  listen(token: string, listener: (note: ProgressParams) => void): () => Promise<void> {
    this.listeners.set(token, listener);
    return async () => {
      await new Promise((resolve) => setImmediate(resolve));
      this.listeners.delete(token);
    };
  }

  private route(note: ProgressParams): void {
    this.listeners.get(String(note.progressToken))?.(note);
  }
}

/** Aborts its signal when `reset` was not called for `limitMs`. */
class SilenceLimit {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout;

  constructor(private readonly limitMs: number) {
    this.timer = this.start();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  reset(): void {
    clearTimeout(this.timer);
    this.timer = this.start();
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private start(): NodeJS.Timeout {
    return setTimeout(() => this.controller.abort(new Error(`no answer and no progress from the server for ${this.limitMs / 1000} s`)), this.limitMs);
  }
}
