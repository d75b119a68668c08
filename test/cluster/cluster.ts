import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { freePort } from '../../src/devserver/dev-server';
import { findOrBuildTemporalCli } from '../../src/devserver/temporal-cli';
import { AgentStatusAttribute } from '../../src/protocol/search-attributes';
import { runCli } from '../support/cli-process';
import { spawnInGroup } from '../support/process-group';
import { startPostgres, type Postgres } from '../support/postgres';
import { findOrBuildServerBinaries } from './server-binaries';
import { ClusterServer } from './temporal-server';

/**
 * The whole cluster as an operator sets it up (docs/deployment.md): PostgreSQL, the schemas by
 * temporal-sql-tool, the server, the namespace with a stated retention, then `durable-agents setup`
 * (the search attributes, registered once). `stop()` stops whatever was started, even after a
 * failed start.
 */
export const NAMESPACE = 'default';
/** Stated, not left to the server's default (which differs by how a namespace is made): `history` of closed runs lasts this long. */
export const RETENTION_HOURS = 72;

/** The schema of each database, as embedded in temporal-sql-tool. */
const DATABASES = [
  { name: 'temporal', schema: 'postgresql/v12/temporal' },
  { name: 'temporal_visibility', schema: 'postgresql/v12/visibility' },
];

export class Cluster {
  postgres: Postgres | null = null;
  server: ClusterServer | null = null;
  private sqlTool = '';
  /** Seconds each step of `start()` took, for the test's report. */
  readonly timings: Record<string, number> = {};

  get address(): string {
    if (!this.server) throw new Error('the cluster is not started');
    return this.server.address;
  }

  /** What a worker or a CLI process needs to reach the cluster. */
  get environment(): Record<string, string> {
    return { TEMPORAL_ADDRESS: this.address, TEMPORAL_NAMESPACE: NAMESPACE };
  }

  /** Starts everything; the server's log goes to `folder`/temporal-server.log. */
  async start(folder: string): Promise<void> {
    const binaries = await this.step('build', () => findOrBuildServerBinaries((line) => console.log(line)));
    this.postgres = await this.step('postgresql', async () => startPostgres(await freePort()));
    this.sqlTool = binaries.sqlTool;
    await this.step('schemas', () => this.applySchemas());
    this.server = await ClusterServer.create(binaries.server, this.postgres, path.join(folder, 'temporal-server.log'));
    await this.step('server', () => this.server!.start());
    await this.step('namespace', () => this.createNamespace());
    await this.step('setup', () => this.setup());
  }

  /**
   * Both databases created and on the newest schema: create-database, setup-schema -v 0.0, then
   * update-schema. Each step is idempotent, so it runs again safely on every start.
   */
  async applySchemas(): Promise<void> {
    const postgres = this.postgres!;
    const connection = [
      '--plugin',
      'postgres12',
      '--endpoint',
      postgres.host,
      '--port',
      String(postgres.port),
      '--user',
      postgres.user,
      '--password',
      postgres.password,
    ];
    for (const database of DATABASES) {
      for (const command of [['create-database'], ['setup-schema', '-v', '0.0'], ['update-schema', '--schema-name', database.schema]]) {
        const result = await run(this.sqlTool, [...connection, '--database', database.name, ...command]);
        if (result.code !== 0)
          throw new Error(`temporal-sql-tool ${command.join(' ')} on ${database.name} failed (${result.code}):\n${result.output}`);
      }
    }
  }

  async stop(): Promise<void> {
    await this.server?.stop('SIGKILL');
    await this.postgres?.stop();
  }

  private async step<T>(name: string, action: () => Promise<T>): Promise<T> {
    const started = Date.now();
    const result = await action();
    this.timings[name] = (Date.now() - started) / 1_000;
    return result;
  }

  /** `temporal operator namespace create` with our CLI build; tried again while the server warms up. */
  private async createNamespace(): Promise<void> {
    const cli = await findOrBuildTemporalCli();
    const args = ['operator', 'namespace', 'create', '--namespace', NAMESPACE, '--retention', `${RETENTION_HOURS}h`, '--address', this.address];
    await retry('namespace create', async () => {
      const result = await run(cli, args);
      if (result.code !== 0 && !/already (exists|registered)/i.test(result.output)) throw new Error(result.output);
    });
  }

  /**
   * `durable-agents setup`, tried again until the new namespace is known to the frontend, then
   * waits until visibility queries accept the attributes it registered.
   */
  private async setup(): Promise<void> {
    await retry('durable-agents setup', async () => {
      const result = await runCli(['setup'], this.environment);
      if (result.code !== 0) throw new Error(`${result.stdout}${result.stderr}`);
    });
    const connection = await Connection.connect({ address: this.address });
    try {
      const client = new Client({ connection, namespace: NAMESPACE });
      await retry('a visibility query by AgentStatus', () => client.workflow.count(`${AgentStatusAttribute.name} = 'awaiting_approval'`));
    } finally {
      await connection.close();
    }
  }
}

function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnInGroup(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

async function retry<T>(what: string, action: () => Promise<T>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await action();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what} did not succeed within ${timeoutMs} ms: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}
