import { Context } from '@temporalio/activity';
import type { McpServerConfig } from '../shared/agent-config';
import { ErrorCode } from '../shared/errors';
import type { ToolSpec } from '../shared/messages';
import { mcpToolName } from '../shared/mcp-tool-names';
import type { McpToolCallInput, McpToolListing, ToolResult } from '../shared/run-types';
import { splitInjectedArgs } from '../shared/split-injected-args';
import { buildToolResult } from '../shared/tool-results';
import type { McpConnections } from '../mcp/mcp-connections';
import { LiveHeartbeat, withHeartbeat } from './heartbeat';
import { ProgressReporter } from './progress-reporter';

export interface McpDependencies {
  mcp: McpConnections;
}

/**
 * MCP tools through the official TypeScript SDK: listing (namespaced `<server>__<tool>`) and
 * calling. A server that is down is reported, never thrown: its tools are missing from the
 * listing, and a call to it is an error result the model sees.
 */
export function createMcpActivities(dependencies: McpDependencies) {
  return {
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
      const progress = new ProgressReporter(live, { step: input.step, callId: input.call.id, toolName: input.call.name, quiet: Boolean(input.quietProgress) });
      const finish = (content: string, isError: boolean): ToolResult => ({
        ...buildToolResult({
          call: input.call,
          step: input.step,
          content,
          startedAt,
          completedAt: Date.now(),
          errorCode: isError ? ErrorCode.toolFailed : undefined,
          approvalId: input.approvalId,
          injectedArgs: injected,
        }),
        ...(progress.notes.length > 0 ? { progress: progress.notes } : {}),
      });
      try {
        const client = await dependencies.mcp.client(input.server);
        // Heartbeats keep a long call alive (the activity has a heartbeat timeout) and carry its progress.
        const result = await withHeartbeat(
          () =>
            client.callTool({ name: input.mcpName, arguments: executable }, undefined, {
              signal: activity.cancellationSignal,
              resetTimeoutOnProgress: true,
              onprogress: (notification) => progress.report(notification.progress, notification.total, notification.message),
            }),
          live,
        );
        const text = (result.content as Array<{ type: string; text?: string }>)
          .map((part) => (part.type === 'text' ? (part.text ?? '') : JSON.stringify(part)))
          .join('\n');
        return finish(result.isError ? `Error: ${text}` : text, Boolean(result.isError));
      } catch (error) {
        await dependencies.mcp.discard(input.server);
        return finish(`Error: MCP server '${input.server.name}' could not run '${input.mcpName}': ${error instanceof Error ? error.message : String(error)}`, true);
      }
    },
  };
}
