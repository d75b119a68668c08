import { Context } from '@temporalio/activity';
import type { McpServerConfig } from '../shared/agent-config';
import { ErrorCode } from '../shared/errors';
import type { ToolSpec } from '../shared/messages';
import { mcpToolName } from '../shared/mcp-tool-names';
import type { McpToolCallInput, McpToolListing, ProgressNote, ToolResult } from '../shared/run-types';
import { splitInjectedArgs } from '../shared/split-injected-args';
import { buildToolResult } from '../shared/tool-results';
import type { McpConnections } from '../mcp/mcp-connections';

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
      const progress: ProgressNote[] = [];
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
        ...(progress.length > 0 ? { progress } : {}),
      });
      try {
        const client = await dependencies.mcp.client(input.server);
        const result = await client.callTool(
          { name: input.mcpName, arguments: executable },
          undefined,
          {
            signal: activity.cancellationSignal,
            resetTimeoutOnProgress: true,
            onprogress: (notification) => {
              const note: ProgressNote = {
                progress: notification.progress,
                ...(notification.total !== undefined ? { total: notification.total } : {}),
                ...(notification.message !== undefined ? { message: notification.message } : {}),
              };
              progress.push(note);
              // Live for anyone describing the workflow while the call runs.
              activity.heartbeat({ progress: note });
            },
          },
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
