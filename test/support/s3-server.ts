import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '../../src/devserver/dev-server';
import { goInstall } from '../../src/devserver/go-build';
import { findOnPath, LOCAL_BIN_DIR } from '../../src/devserver/temporal-cli';
import { spawnInGroup, stopProcessGroup } from './process-group';

/**
 * A real S3-compatible server for the tests: versitygw (its POSIX backend: buckets are folders),
 * found on PATH or built once from its Go module into .temporal-bin/, like the Temporal CLI.
 */
export const VERSITYGW_MODULE = 'github.com/versity/versitygw/cmd/versitygw@v1.8.0';

export const S3_TEST_CREDENTIALS = { accessKeyId: 'agents-test', secretAccessKey: 'agents-test-secret' };

/** The versitygw binary: VERSITYGW, PATH, .temporal-bin/versitygw, or built now (a few minutes, once). */
export async function findOrBuildVersitygw(log: (line: string) => void = () => {}): Promise<string> {
  if (process.env.VERSITYGW) return process.env.VERSITYGW;
  const onPath = findOnPath('versitygw');
  if (onPath) return onPath;
  const local = path.join(LOCAL_BIN_DIR, 'versitygw');
  if (existsSync(local)) return local;
  log(`Building versitygw from ${VERSITYGW_MODULE} into ${LOCAL_BIN_DIR} (first time only)...`);
  await goInstall(VERSITYGW_MODULE, LOCAL_BIN_DIR, log);
  return local;
}

export interface S3Server {
  endpoint: string;
  stop(): Promise<void>;
}

/** Starts versitygw on a free loopback port, serving buckets from `folder`. */
export async function startS3Server(folder: string): Promise<S3Server> {
  const binary = await findOrBuildVersitygw();
  mkdirSync(folder, { recursive: true });
  const port = await freePort();
  const child: ChildProcess = spawnInGroup(
    binary,
    ['--access', S3_TEST_CREDENTIALS.accessKeyId, '--secret', S3_TEST_CREDENTIALS.secretAccessKey, '--port', `127.0.0.1:${port}`, 'posix', folder],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 30_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopProcessGroup(child, { signal: 'SIGKILL' });
      throw new Error(`versitygw did not serve on 127.0.0.1:${port}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () => stopProcessGroup(child),
  };
}

/** Whether something accepts TCP connections on the loopback `port` (a server the tests started is up). */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
