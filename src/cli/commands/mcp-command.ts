// `mcp`: the MCP server over stdio, for desktop hosts and IDEs that start it as a child process; the caller is this machine's user.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { AgentClient } from '../../client/agent-client';
import { resolveTemporalTarget } from '../../connection/temporal-target';
import { readDecisionSigningKey } from '../../decisions/decision-keys';
import { LOCAL_PRINCIPAL } from '../../gateway/gateway-auth';
import { createAgentMcpServer } from '../../mcp-server/agent-mcp-server';
import { AgentToolCatalog } from '../../mcp-server/agent-tool-catalog';

export interface McpCommandOptions {
  taskQueue?: string;
  /** Comma-separated agent names to offer (default: every agent whose `expose` allows `mcp`). */
  agents?: string;
  /** A PEM file with the Ed25519 private key decisions' proofs are signed with (default: DURABLE_AGENTS_DECISION_KEY). */
  decisionKey?: string;
}

/**
 * `mcp`: serves the agents as MCP tools on stdin / stdout until the host closes stdin. The host
 * started this process on this machine, so it acts as principal `local` with every scope, as the
 * gateway does on loopback without keys. Nothing but MCP messages goes to stdout.
 */
export async function mcpCommand(options: McpCommandOptions): Promise<void> {
  const decisionKey = readDecisionSigningKey(options.decisionKey);
  const exposed = options.agents
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const agents = await AgentClient.connect(resolveTemporalTarget(), options.taskQueue ? { taskQueue: options.taskQueue } : {});
  try {
    const catalog = new AgentToolCatalog(agents, exposed ? { exposed } : {});
    const server = createAgentMcpServer({ agents, catalog, principal: LOCAL_PRINCIPAL, ...(decisionKey ? { decisionKey } : {}) });
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await server.connect(transport);
    await closed;
    await server.close().catch(() => undefined);
  } finally {
    await agents.close();
  }
}
