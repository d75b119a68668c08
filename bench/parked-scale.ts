import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { stringify as stringifyYaml } from 'yaml';
import { AgentClient, type RunHandle } from '../src/client/agent-client';
import { startWorkerProcess } from '../test/support/worker-process';
import { rssOf } from './approval-latency';
import { mib, type BenchStack } from './bench-stack';

/**
 * Thousands of runs parked on approvals with one worker process (`durable-agents worker`, default
 * workflow cache): its RSS while they wait, then how fast they all resume once approved (most of
 * them were evicted from the cache, so each resume replays its history first). Opt-in:
 * `BENCH_ONLY=parked-scale BENCH_PARKED_SCALE=10000` (about 20 minutes here).
 */

const CONCURRENCY = 50;

/** Runs `work` on every item, at most `limit` at a time. */
export async function inPool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** The SDK's default workflow cache size for this process's heap limit (reuseV8Context), as the worker computes it. */
export function defaultCacheSize(): number {
  const heapMiB = getHeapStatistics().heap_size_limit / 1024 / 1024;
  return Math.max(Math.floor((Math.max(heapMiB - 200, 0) * 600) / 1024), 10);
}

export async function measureParkedScale(stack: BenchStack, folder: string, count: number, maxCachedWorkflows?: number): Promise<void> {
  const script = path.join(folder, 'parked-scale-model.yaml');
  writeFileSync(script, stringifyYaml({ replies: [{ toolCalls: [{ name: 'record', args: { label: 'x' } }] }, { text: 'done' }] }));
  const taskQueue = `parked-scale-${randomUUID()}`;
  const worker = await startWorkerProcess(taskQueue, {
    TEMPORAL_ADDRESS: stack.server.address,
    CRASH_LOG: path.join(folder, 'parked-scale.log'),
    ...(maxCachedWorkflows !== undefined ? { AGENT_MAX_CACHED_WORKFLOWS: String(maxCachedWorkflows) } : {}),
  });
  const temporal = stack.agents.temporal;
  let peak = 0;
  const sample = () => (peak = Math.max(peak, rssOf(worker.child.pid!)));
  const sampler = setInterval(sample, 1_000);
  try {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const idle = rssOf(worker.child.pid!);
    const agents = new AgentClient(temporal, { taskQueue });
    const name = `parked-${randomUUID().slice(0, 8)}`;
    const countWhere = async (status: string) => (await temporal.workflow.count(`AgentName = '${name}' AND AgentStatus = '${status}'`)).count;
    const untilAll = async (status: string) => {
      while ((await countWhere(status)) < count) await new Promise((resolve) => setTimeout(resolve, 2_000));
    };

    const parkStarted = performance.now();
    const runs: RunHandle[] = [];
    await inPool(
      Array.from({ length: count }, (_, index) => index),
      CONCURRENCY,
      async () => {
        runs.push(await agents.startRun({ config: { name, model: `scripted:${script}`, tools: ['record'], hitl_tools: ['record'] }, task: 'wait' }));
      },
    );
    await untilAll('awaiting_approval');
    const parkSeconds = (performance.now() - parkStarted) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const parked = rssOf(worker.child.pid!);
    const cache = maxCachedWorkflows ?? defaultCacheSize();
    console.log(
      `${count} runs parked on approvals, one worker process (workflow cache ${cache}${maxCachedWorkflows === undefined ? ', the default' : ''}):`,
    );
    console.log(
      `  parked in ${parkSeconds.toFixed(0)} s (${(count / parkSeconds).toFixed(1)} runs/s); at least ${Math.max(count - cache, 0)} of them evicted from the cache`,
    );
    console.log(
      `  RSS idle ${mib(idle)}, all parked ${mib(parked)} (+${((parked - idle) / count / 1024).toFixed(0)} KiB per run), peak so far ${mib(peak)}`,
    );

    const resumeStarted = performance.now();
    await inPool(runs, CONCURRENCY, async (run) => {
      await run.workflow.signal('approval', { approvalId: 'step-1.call-1', decision: 'approve' });
    });
    await untilAll('completed');
    const resumeSeconds = (performance.now() - resumeStarted) / 1000;
    sample();
    console.log(
      `  approved all: every run completed in ${resumeSeconds.toFixed(0)} s (${(count / resumeSeconds).toFixed(1)} runs/s), peak RSS ${mib(peak)}`,
    );
  } finally {
    clearInterval(sampler);
    await worker.kill('SIGTERM');
  }
}
