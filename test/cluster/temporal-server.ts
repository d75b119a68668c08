import type { ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { spawnInGroup, stopProcessGroup } from '../support/process-group';
import type { Postgres } from '../support/postgres';

/**
 * The real Temporal server (all four services in one process) on PostgreSQL, configured by
 * deploy/temporal/postgresql.yaml through its environment variables, with the project's dynamic
 * config. It can be stopped (SIGTERM or SIGKILL) and started again on the same database and ports.
 */
const ROOT = path.resolve(__dirname, '..', '..');
export const SERVER_CONFIG_DIR = path.join(ROOT, 'deploy', 'temporal');
export const DYNAMIC_CONFIG_FILE = path.join(ROOT, 'deploy', 'dynamicconfig', 'agents.yaml');

const PORT_NAMES = ['FRONTEND_GRPC_PORT', 'FRONTEND_HTTP_PORT', 'HISTORY_GRPC_PORT', 'MATCHING_GRPC_PORT', 'WORKER_GRPC_PORT'];
const MEMBERSHIP_PORT_NAMES = ['FRONTEND_MEMBERSHIP_PORT', 'HISTORY_MEMBERSHIP_PORT', 'MATCHING_MEMBERSHIP_PORT', 'WORKER_MEMBERSHIP_PORT'];

/**
 * A free loopback port at most 32767: the server stores membership ports in a SMALLINT column,
 * and the OS hands out ephemeral ports from 32768 up, so ports are tried at random below that.
 */
export async function freeLowPort(taken: Set<number> = new Set()): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_768);
    if (!taken.has(port) && (await canListen(port))) return port;
  }
  throw new Error('No free loopback port found in 20000-32767');
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export class ClusterServer {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private tail: string[] = [];
  private readonly killOnExit = () => this.child?.kill('SIGKILL');

  private constructor(
    private readonly binary: string,
    private readonly environment: Record<string, string>,
    /** Where all of the server's output goes (appended across restarts). */
    readonly logFile: string,
  ) {}

  /** Picks free ports (once: a restart reuses them) and the server's environment. */
  static async create(binary: string, postgres: Postgres, logFile: string): Promise<ClusterServer> {
    const taken = new Set<number>();
    const environment: Record<string, string> = {
      POSTGRES_SEEDS: postgres.host,
      POSTGRES_PORT: String(postgres.port),
      POSTGRES_USER: postgres.user,
      POSTGRES_PWD: postgres.password,
      DYNAMIC_CONFIG_FILE_PATH: DYNAMIC_CONFIG_FILE,
      LOG_LEVEL: 'warn',
    };
    for (const name of [...PORT_NAMES, ...MEMBERSHIP_PORT_NAMES]) {
      const port = await freeLowPort(taken);
      taken.add(port);
      environment[name] = String(port);
    }
    return new ClusterServer(binary, environment, logFile);
  }

  get address(): string {
    return `127.0.0.1:${this.environment.FRONTEND_GRPC_PORT}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the server and waits until its frontend reports SERVING. */
  async start(timeoutMs = 120_000): Promise<void> {
    const args = ['--root', '/', '--config', SERVER_CONFIG_DIR, '--env', 'postgresql', '--allow-no-auth', 'start'];
    const child = spawnInGroup(this.binary, args, { env: { ...process.env, ...this.environment }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const keep = (chunk: Buffer) => {
      appendFileSync(this.logFile, chunk);
      this.tail.push(...chunk.toString().split('\n').filter(Boolean));
      this.tail.splice(0, Math.max(0, this.tail.length - 30));
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    process.once('exit', this.killOnExit);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`temporal-server exited with ${child.exitCode} before serving:\n${this.tail.join('\n')}`);
      if (await this.serving()) return;
      if (Date.now() > deadline) {
        await this.stop('SIGKILL');
        throw new Error(`temporal-server did not serve on ${this.address} within ${timeoutMs} ms:\n${this.tail.join('\n')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /** Stops the server gracefully and starts it again with `settings` added to its environment (same database and ports). */
  async restartWith(settings: Record<string, string>): Promise<void> {
    await this.stop('SIGTERM');
    Object.assign(this.environment, settings);
    await this.start();
  }

  /** SIGTERM (a graceful stop, SIGKILL after 60 s) or SIGKILL; resolves when the process is gone. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const child = this.child;
    process.removeListener('exit', this.killOnExit);
    if (!child) return;
    await stopProcessGroup(child, { signal, graceMs: 60_000 });
    await this.exited;
  }

  private async serving(): Promise<boolean> {
    try {
      const connection = await Connection.connect({ address: this.address, connectTimeout: 1_000 });
      try {
        const response = await connection.healthService.check({});
        return response.status === 1; // SERVING
      } finally {
        await connection.close();
      }
    } catch {
      return false;
    }
  }
}
