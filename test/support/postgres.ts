import { spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnInGroup, stopProcessGroup } from './process-group';

/**
 * A private PostgreSQL for tests (the cluster test's Temporal server, the PostgreSQL memory
 * store): `initdb` into a folder, the server on a free loopback port with its unix socket in that
 * folder, password authentication over TCP (as a real server has), stopped with a fast shutdown.
 * PostgreSQL refuses to run as root, so as root it runs as the `postgres` user (or `nobody`),
 * owning the folder.
 */
export interface Postgres {
  host: string;
  port: number;
  user: string;
  password: string;
  /** `postgres://user:password@host:port/postgres` (the database initdb always makes). */
  url: string;
  /** The postmaster's process id (its backends are its children). */
  pid: number;
  stop(): Promise<void>;
}

/** The folder of `initdb` and `postgres`: POSTGRES_BIN_DIR, else the newest /usr/lib/postgresql/<version>/bin. */
export function postgresBinDir(): string {
  if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((version) => existsSync(path.join(root, version, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest)
    throw new Error(
      `No PostgreSQL found under ${root}: install PostgreSQL (15 or later) or set POSTGRES_BIN_DIR to the folder of its initdb and postgres`,
    );
  return path.join(root, newest, 'bin');
}

/** uid/gid to run PostgreSQL as: ours, or when we are root the `postgres` (else `nobody`) user's. */
function runAs(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const user of ['postgres', 'nobody']) {
    const uid = spawnSync('id', ['-u', user], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', user], { encoding: 'utf8' });
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error('Running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as (it refuses root)');
}

/**
 * Makes a database cluster in a new folder of the OS temp dir (its own, not nested in another
 * test folder: as root, the PostgreSQL user must be able to reach it) and starts it on `port`.
 * `stop()` also deletes the folder.
 */
export async function startPostgres(port: number): Promise<Postgres> {
  const bin = postgresBinDir();
  const user = 'temporal';
  const password = 'temporal-test-password';
  const owner = runAs();
  const folder = mkdtempSync(path.join(os.tmpdir(), 'agents-postgres-'));
  const dataDir = path.join(folder, 'data');
  const passwordFile = path.join(folder, 'password');
  writeFileSync(passwordFile, `${password}\n`);
  if (owner) for (const file of [folder, passwordFile]) chownSync(file, owner.uid, owner.gid);
  const asOwner: SpawnOptions = owner ? { uid: owner.uid, gid: owner.gid } : {};

  const initdb = spawnSync(
    path.join(bin, 'initdb'),
    [
      '-D',
      dataDir,
      '-U',
      user,
      `--pwfile=${passwordFile}`,
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '-E',
      'UTF8',
      '--no-locale',
      '--no-sync',
      '--no-instructions',
    ],
    { ...asOwner, encoding: 'utf8' },
  );
  if (initdb.status !== 0) throw new Error(`initdb failed (${initdb.status}):\n${initdb.stdout}\n${initdb.stderr}`);

  const child = spawnInGroup(path.join(bin, 'postgres'), ['-D', dataDir, '-p', String(port), '-k', folder, '-c', 'listen_addresses=127.0.0.1'], {
    ...asOwner,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // An immediate shutdown if the test process ends without stopping it.
  const onExit = () => child.kill('SIGQUIT');
  process.once('exit', onExit);
  const stop = async () => {
    process.removeListener('exit', onExit);
    await stopPostgres(child, exited);
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    await waitFor(
      () => output.includes('ready to accept connections'),
      () => child.exitCode !== null,
      60_000,
    );
  } catch (error) {
    await stop();
    throw new Error(`PostgreSQL did not start on 127.0.0.1:${port}: ${(error as Error).message}\n${output}`);
  }
  return { host: '127.0.0.1', port, user, password, url: `postgres://${user}:${password}@127.0.0.1:${port}/postgres`, pid: child.pid ?? -1, stop };
}

/** Fast shutdown (SIGINT: clients are disconnected), then an immediate one if it hangs. */
async function stopPostgres(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGINT');
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 15_000).unref());
    if ((await Promise.race([exited, timeout])) === 'timeout') {
      child.kill('SIGQUIT');
      await exited;
    }
  }
  // The postmaster ends its backends before it exits; this ends any that did not.
  await stopProcessGroup(child, { graceMs: 5_000 });
}

async function waitFor(ready: () => boolean, failed: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (failed()) throw new Error('the process exited');
    if (Date.now() > deadline) throw new Error(`not ready within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
