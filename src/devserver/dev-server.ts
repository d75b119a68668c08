import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { AGENT_SEARCH_ATTRIBUTES } from '../protocol/search-attributes';
import { ServerLog } from './server-log';
import { findOrBuildTemporalCli } from './temporal-cli';

/**
 * Starts the real Temporal dev server (`temporal server start-dev`): loopback only, SQLite database
 * file in WAL mode (runs survive a restart or a killed server process), Web UI on, this runtime's
 * search attributes registered, and a clean stop that leaves no process behind.
 */

/** Where the dev server's database, artifacts and skill caches go: AGENT_DATA_DIR, or .temporal-data in the working directory (never inside an installed package). */
export const DEFAULT_DATA_DIR = path.resolve(process.env.AGENT_DATA_DIR ?? '.temporal-data');

export interface DevServerOptions {
  /** gRPC port; 0 picks a free one. Default 7233. */
  port?: number;
  /** Web UI port; 0 picks a free one; null disables the UI. Default port + 1000. */
  uiPort?: number | null;
  /** SQLite file. Default `.temporal-data/dev.db`. */
  dbFile?: string;
  namespace?: string;
  /**
   * `--sqlite-pragma NAME=VALUE` pairs. Replaces `DEFAULT_SQLITE_PRAGMAS`; `{}` leaves SQLite's own
   * defaults (rollback journal, `synchronous=FULL`), which the bench compares against.
   */
  sqlitePragmas?: Record<string, string>;
  /** Extra `--dynamic-config-value KEY=JSON` pairs. */
  dynamicConfig?: Record<string, unknown>;
  /** The CLI binary; found or built when absent. */
  cliPath?: string;
  /** Progress while the server starts (and while the CLI is built), one line a call. */
  log?: (line: string) => void;
  /**
   * Where the server's own log goes. Default (`'capture'`): its last lines are kept to explain a
   * start that fails, and all of it is appended to the file `TEMPORAL_DEV_SERVER_LOG` names.
   */
  serverOutput?: 'inherit' | 'capture' | 'ignore';
  /**
   * How long to wait for the server to serve. Default: 60 s, or 180 s on a first start (no
   * database file yet), which creates and migrates the database.
   */
  readyTimeoutMs?: number;
  /** How often `log` hears that the server is still starting. Default 10 s. */
  progressEveryMs?: number;
  /** A remote codec endpoint the Web UI decodes encrypted payloads through. */
  uiCodecEndpoint?: string;
}

export interface DevServer {
  address: string;
  namespace: string;
  /** Base URL of the Web UI, or null when it is disabled. */
  uiUrl: string | null;
  dbFile: string;
  pid: number;
  stop(): Promise<void>;
}

/** How long a start may take to serve: a first start (fresh database) creates and migrates it. */
export function defaultReadyTimeoutMs(freshDatabase: boolean): number {
  return freshDatabase ? 180_000 : 60_000;
}

/**
 * Dynamic config this runtime asks of the dev server (see docs/performance.md). The dev server has
 * one history shard, and Temporal reads each shard's transfer queue (the tasks that hand workflow
 * and activity tasks to matching) at most 20 times a second by default: once a burst is used up,
 * every workflow task of every run waits for the next read, up to 50 ms. 200 reads a second take
 * that wait off each step (a 10-step agent run: 1033 ms capped, 727 ms lifted, same throughput).
 *
 * A deleted execution (`thread delete`, `memory forget`) goes only once its shard's transfer queue
 * has recorded its close task as done, and the queue records that every 30 s by default; the
 * delete task retries with a growing backoff (3 s, then ×1.5), so a delete could take 30 to 100 s
 * and more under load. Recording it every second, one small write a second for the dev server's
 * single shard, lets a delete finish within seconds.
 *
 * Worker Deployment Versioning (docs/deployment.md): deployment versions, the versioning fields of
 * the workflow APIs, and the "target version changed" flag pinned workflows move on (server 1.32+;
 * an older server ignores the key). The server's defaults are the same today; they are set here so
 * that a build which turns one off does not silently strand threads on an old build.
 */
export const DEFAULT_DYNAMIC_CONFIG: Record<string, unknown> = {
  'system.enableActivityEagerExecution': true,
  'history.transferProcessorMaxPollRPS': 200,
  'history.transferProcessorUpdateAckInterval': '1s',
  'system.enableDeploymentVersions': true,
  'frontend.workerVersioningWorkflowAPIs': true,
  'system.enableSendTargetVersionChanged': true,
};

/**
 * SQLite pragmas of the dev server's database file. WAL with `synchronous=NORMAL` runs about 4 times
 * as many workflows a second as SQLite's default journal with `synchronous=FULL`. A killed server
 * process loses nothing: a commit is in the WAL file (in the OS's page cache) when it returns, and the
 * next start reads it. An OS crash or power loss can lose the last commits, those since the WAL was
 * last synced at a checkpoint (at most about 4 MB of the WAL), but never corrupts the database. See
 * docs/performance.md.
 */
export const DEFAULT_SQLITE_PRAGMAS: Readonly<Record<string, string>> = {
  journal_mode: 'wal',
  synchronous: 'normal',
};

/**
 * Starts of a server on ports picked here (`port: 0`). The CLI also picks free ports of its own
 * (the internal services', the HTTP API's, the metrics'), and a port found free can be taken by
 * another process before the server listens on it: the server then exits at once. A start on
 * fresh ports is the fix; a port the caller chose is its own and is never retried.
 */
const PICKED_PORT_STARTS = 3;

/** A server process that exited before it served: a port it was given or picked was taken, or it could not start at all. */
class ExitedBeforeServing extends Error {}

const exitedBeforeServing = (exitCode: number | null, address: string) =>
  new ExitedBeforeServing(`temporal server start-dev exited with code ${exitCode} before serving on ${address} (is the port taken?)`);

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const cliPath = options.cliPath ?? (await findOrBuildTemporalCli({ log: options.log }));
  const starts = options.port === 0 ? PICKED_PORT_STARTS : 1;
  for (let start = 1; ; start++) {
    try {
      return await launchDevServer(cliPath, options);
    } catch (error) {
      if (!(error instanceof ExitedBeforeServing) || start >= starts) throw error;
      options.log?.(`The Temporal dev server exited before serving (start ${start} of ${starts}); starting it again on other ports.`);
    }
  }
}

async function launchDevServer(cliPath: string, options: DevServerOptions): Promise<DevServer> {
  const port = options.port === 0 ? await freePort() : (options.port ?? 7233);
  const uiPort = options.uiPort === null ? null : options.uiPort === 0 ? await freePort() : (options.uiPort ?? port + 1000);
  const dbFile = options.dbFile ?? path.join(DEFAULT_DATA_DIR, 'dev.db');
  const namespace = options.namespace ?? 'default';
  const freshDatabase = !existsSync(dbFile);
  mkdirSync(path.dirname(dbFile), { recursive: true });

  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--db-filename', dbFile];
  args.push('--namespace', namespace, '--log-level', 'warn');
  if (uiPort === null) args.push('--headless');
  else args.push('--ui-ip', '127.0.0.1', '--ui-port', String(uiPort));
  if (uiPort !== null && options.uiCodecEndpoint) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  for (const [pragma, value] of Object.entries(options.sqlitePragmas ?? DEFAULT_SQLITE_PRAGMAS)) args.push('--sqlite-pragma', `${pragma}=${value}`);
  for (const attribute of AGENT_SEARCH_ATTRIBUTES) args.push('--search-attribute', `${attribute.name}=${attribute.type}`);
  for (const [key, value] of Object.entries({ ...DEFAULT_DYNAMIC_CONFIG, ...options.dynamicConfig })) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }

  const output = options.serverOutput ?? 'capture';
  const child = spawn(cliPath, args, { stdio: ['ignore', output === 'capture' ? 'pipe' : output, output === 'capture' ? 'pipe' : output] });
  const serverLog = new ServerLog();
  serverLog.follow(child.stdout);
  serverLog.follow(child.stderr);
  const address = `127.0.0.1:${port}`;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // After 'exit', the server's last output may still be in the pipes: 'close' comes when it is read.
  const outputRead = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async () => {
    process.removeListener('exit', killOnExit);
    await stopChild(child, exited);
    serverLog.close();
  };
  const timeoutMs = options.readyTimeoutMs ?? defaultReadyTimeoutMs(freshDatabase);
  const progress = progressReporter(options.log, address, freshDatabase ? dbFile : null, options.progressEveryMs ?? 10_000);
  try {
    await waitUntilServing(address, namespace, exited, timeoutMs);
  } catch (error) {
    await stop();
    await Promise.race([outputRead, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    const message = startFailureMessage((error as Error).message, serverLog.tail(), [cliPath, ...args]);
    throw error instanceof ExitedBeforeServing ? new ExitedBeforeServing(message) : new Error(message);
  } finally {
    clearInterval(progress);
  }
  return {
    address,
    namespace,
    uiUrl: uiPort === null ? null : `http://127.0.0.1:${uiPort}`,
    dbFile,
    pid: child.pid ?? -1,
    stop,
  };
}

/** Says every `everyMs` that the server is still starting (and why a first start takes longer). */
function progressReporter(
  log: ((line: string) => void) | undefined,
  address: string,
  freshDbFile: string | null,
  everyMs: number,
): NodeJS.Timeout | undefined {
  if (!log) return undefined;
  const startedAt = Date.now();
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - startedAt) / 1000);
    const why = freshDbFile ? ` (first start: creating the database ${freshDbFile})` : '';
    log(`Still waiting for the Temporal dev server on ${address}: ${seconds} s${why}...`);
  }, everyMs);
  timer.unref();
  return timer;
}

/** The reason, the server's own last lines and what to try, in one message. */
function startFailureMessage(reason: string, serverLines: string[], command: string[]): string {
  const lines = [reason];
  if (serverLines.length > 0) lines.push(`The server's last log lines:`, ...serverLines.map((line) => `  ${line}`));
  else lines.push('The server wrote nothing (set TEMPORAL_DEV_SERVER_LOG=<file> to keep its whole log).');
  lines.push(
    `Command: ${command.join(' ')}`,
    'A second start reuses the database and is usually much faster; or start the server yourself and set TEMPORAL_ADDRESS.',
  );
  return lines.join('\n');
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 10_000).unref());
  if ((await Promise.race([exited, timeout])) === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}

async function waitUntilServing(address: string, namespace: string, exited: Promise<number | null>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (exitCode !== undefined) {
      throw exitedBeforeServing(exitCode, address);
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  // The server may have exited while the last attempt ran.
  await new Promise((resolve) => setImmediate(resolve));
  if (exitCode !== undefined) throw exitedBeforeServing(exitCode, address);
  throw new Error(`Temporal dev server did not serve on ${address} within ${timeoutMs} ms: ${String(lastError)}`);
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
