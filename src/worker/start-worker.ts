import { Client } from '@temporalio/client';
import { NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { ensureSearchAttributes } from '../connection/ensure-search-attributes';
import type { TemporalTarget } from '../connection/temporal-target';
import type { Tool } from '../tools/define-tool';
import { createAgentWorker } from './create-worker';
import { McpConnections } from '../mcp/mcp-connections';
import { createProcessLogger, PinoTemporalLogger } from './logger';
import { dataConverterFromEnvironment } from '../codec/encryption-codec';

export interface RunningWorker {
  worker: Worker;
  /** Shares the worker's connection, so runs it starts can use eager start. */
  client: Client;
  connection: NativeConnection;
  /** Resolves when the worker has stopped. */
  done: Promise<void>;
  stop(): Promise<void>;
}

let runtimeInstalled = false;

/** Installs the process logger into Temporal's runtime (once per process). */
export function installRuntimeLogger(name: string): void {
  if (runtimeInstalled) return;
  Runtime.install({ logger: new PinoTemporalLogger(createProcessLogger(name, process.env.LOG_LEVEL ?? 'warn')) });
  runtimeInstalled = true;
}

/**
 * Connects to the target and runs an agent worker until `stop()` (or SIGINT / SIGTERM, which the
 * Temporal worker handles by draining in-flight tasks).
 */
export async function startWorker(target: TemporalTarget, tools: Tool[], taskQueue?: string): Promise<RunningWorker> {
  const dataConverter = dataConverterFromEnvironment();
  const connection = await NativeConnection.connect(target.connectionOptions);
  const client = new Client({ connection, namespace: target.namespace, ...(dataConverter ? { dataConverter } : {}) });
  if (target.external) {
    // A cluster may lack our search attributes; the dev server got them at start.
    await ensureSearchAttributes(connection, target.namespace).catch((error: unknown) => {
      process.stderr.write(`warning: could not register search attributes: ${String(error)}\n`);
    });
  }
  const mcp = new McpConnections();
  const worker = await createAgentWorker({ connection, client, namespace: target.namespace, taskQueue, tools, mcp, dataConverter });
  // MCP server processes end with the worker: no orphans.
  const done = worker.run().finally(async () => {
    await mcp.closeAll();
    await connection.close();
  });
  return {
    worker,
    client,
    connection,
    done,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
