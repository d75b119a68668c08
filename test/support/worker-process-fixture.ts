// The set-up every test of real worker processes shares: a temp folder, a client on a fresh task queue, and the worker processes a test starts, killed after it.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../../src/client/agent-client';
import { resolveTemporalTarget } from '../../src/connection/temporal-target';
import { startWorkerProcess, type WorkerProcess } from './worker-process';

export interface WorkerProcessFixture {
  /** A temp folder of this test file (scripts, logs, release files), removed after it. */
  readonly folder: string;
  readonly client: Client;
  /** An agent client on this file's own task queue. */
  readonly agents: AgentClient;
  /** An agent client on a new task queue of its own, for a test that must not share workers. */
  freshAgents(): AgentClient;
  /**
   * Starts `durable-agents worker` (the crash tools, or `toolsModule`) on the file's task queue or
   * `taskQueue`; it is SIGKILLed after the test.
   */
  startWorker(environment?: Record<string, string>, options?: { taskQueue?: string; toolsModule?: string }): Promise<WorkerProcess>;
}

/**
 * Registers the hooks of a test file that runs real worker processes (call it at the top level):
 * before all, a temp folder named after `name` and a connection; after each test, every worker
 * process the test started is killed (woken first, for tests that SIGSTOP one), so none answers for
 * the next test's runs; after all, the same again (a worker whose start finished after a timed-out
 * test's clean-up), then the connection and the folder.
 */
export function workerProcessFixture(name: string): WorkerProcessFixture {
  let folder = '';
  let connection: Connection | undefined;
  let client: Client | undefined;
  let agents: AgentClient | undefined;
  const workers: WorkerProcess[] = [];
  const killWorkers = async () => {
    for (const worker of workers.splice(0)) {
      worker.child.kill('SIGCONT');
      await worker.kill('SIGKILL');
    }
  };

  beforeAll(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), `${name}-`));
    const target = resolveTemporalTarget();
    connection = await Connection.connect(target.connectionOptions);
    client = new Client({ connection, namespace: target.namespace });
    agents = new AgentClient(client, { taskQueue: `${name}-${randomUUID()}` });
  });
  afterEach(killWorkers);
  afterAll(async () => {
    await killWorkers();
    await connection?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('workerProcessFixture: used before its beforeAll ran');
    return value;
  };
  return {
    get folder() {
      return started(folder || undefined);
    },
    get client() {
      return started(client);
    },
    get agents() {
      return started(agents);
    },
    freshAgents() {
      return new AgentClient(started(client), { taskQueue: `${name}-${randomUUID()}` });
    },
    async startWorker(environment = {}, options = {}) {
      const worker = await startWorkerProcess(options.taskQueue ?? started(agents).taskQueue, environment, options.toolsModule);
      workers.push(worker);
      return worker;
    },
  };
}
