import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpServerConfig } from '../config/agent-config';

/** This package's version, which the MCP client reports to servers (src/mcp and dist/mcp both sit two folders below package.json). */
const PACKAGE_VERSION = (require('../../package.json') as { version: string }).version;

/**
 * MCP clients of one worker process, one per server config, reused across calls (a stdio server
 * is spawned once, not per call). A connection that fails is dropped, so the next call retries.
 * The MCP SDK loads on the first connection: a worker whose agents name no MCP server never loads it.
 */
export class McpConnections {
  private readonly clients = new Map<string, Promise<Client>>();

  async client(server: McpServerConfig): Promise<Client> {
    const key = JSON.stringify(server);
    let client = this.clients.get(key);
    if (!client) {
      client = connect(server);
      this.clients.set(key, client);
      client.catch(() => this.clients.delete(key));
    }
    return client;
  }

  /** Forgets a client after an error (for example its process died). */
  async discard(server: McpServerConfig): Promise<void> {
    const key = JSON.stringify(server);
    const client = this.clients.get(key);
    this.clients.delete(key);
    await client?.then((connected) => connected.close()).catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    const clients = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(clients.map((client) => client.then((connected) => connected.close()).catch(() => undefined)));
  }
}

async function connect(server: McpServerConfig): Promise<Client> {
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js') as typeof import('@modelcontextprotocol/sdk/client/index.js');
  const client = new Client({ name: 'durable-agents', version: PACKAGE_VERSION });
  const transport = server.url ? httpTransport(server.url) : stdioTransport(server);
  await client.connect(transport);
  return client;
}

function httpTransport(url: string) {
  const { StreamableHTTPClientTransport } =
    require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  return new StreamableHTTPClientTransport(new URL(url));
}

function stdioTransport(server: McpServerConfig) {
  const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js') as typeof import('@modelcontextprotocol/sdk/client/stdio.js');
  return new StdioClientTransport({ command: server.command!, args: server.args, env: environmentFor(server), stderr: 'ignore' });
}

/** PATH and the like, plus the variables the config names; no other secret of the worker. */
function environmentFor(server: McpServerConfig): Record<string, string> {
  const keep = ['PATH', 'HOME', 'LANG', 'TMPDIR', 'NODE_OPTIONS', 'SystemRoot', ...server.env_from_worker];
  return Object.fromEntries(keep.flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])));
}
