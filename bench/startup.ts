import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { median, ms, type BenchStack } from './bench-stack';

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'client', 'cli.js');

/** Wall time of a command, from spawn to exit. */
function timeCommand(args: string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${result.status}`);
  return performance.now() - started;
}

/** Time from spawning a worker process until it prints that it polls; the process is then stopped. */
function timeWorkerReady(args: string[], environment: Record<string, string>): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...environment }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise<number>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Worker polling')) {
        const elapsed = performance.now() - started;
        child.once('exit', () => resolve(elapsed));
        child.kill('SIGTERM');
      }
    });
    child.once('exit', (code) => {
      if (!output.includes('Worker polling')) reject(new Error(`worker exited with ${code} before polling:\n${output}`));
    });
  });
}

/**
 * The installed package's start-up, from the compiled build (run `npm run build` first; the bench
 * does): the CLI's `--help` against a bare `node -e ""`, and a worker process until it polls with
 * the prebuilt workflow bundle against one that bundles the workflows at start. Targets: `--help`
 * within 1 s, a worker polling within 3 s.
 */
export async function measureStartup(stack: BenchStack, rounds: number): Promise<void> {
  const help: number[] = [];
  const bareNode: number[] = [];
  const prebuilt: number[] = [];
  const bundling: number[] = [];
  const environment = { TEMPORAL_ADDRESS: stack.server.address, AGENT_WORKFLOW_BUNDLE: '' };
  const worker = ['worker', '--no-demo-tools'];
  for (let round = 0; round < rounds; round++) {
    help.push(timeCommand([CLI, '--help']));
    bareNode.push(timeCommand(['-e', '']));
    const taskQueue = `startup-${randomUUID()}`;
    prebuilt.push(await timeWorkerReady([CLI, ...worker, '--task-queue', taskQueue], environment));
    // From the sources: no prebuilt bundle there, so the worker runs webpack before polling.
    bundling.push(
      await timeWorkerReady(['--import', 'tsx', path.join(ROOT, 'src', 'client', 'cli.ts'), ...worker, '--task-queue', taskQueue], environment),
    );
  }
  console.log(`Start-up of the compiled package (median of ${rounds} interleaved rounds):`);
  console.log(
    `  durable-agents --help: ${ms(median(help))} (target 1 s), bare node process: ${ms(median(bareNode))}, ratio ${(median(help) / median(bareNode)).toFixed(2)}`,
  );
  console.log(
    `  worker process until polling: prebuilt bundle ${ms(median(prebuilt))} (target 3 s), bundling at start ${ms(median(bundling))}, ratio ${(median(prebuilt) / median(bundling)).toFixed(2)}`,
  );
}
