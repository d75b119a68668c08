// Bench sections `parked-threads` (a thread parked between turns against a run parked on an approval, in the worker cache) and `parked-threads-scale` (10,000 parked threads on one worker).
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { AgentClient } from '../src/client/agent-client';
import type { ThreadHandle } from '../src/client/thread-handle';
import { startWorkerProcess, type WorkerProcess } from '../test/support/worker-process';
import { rssOf } from './approval-latency';
import { median, mib, type BenchStack } from './bench-stack';
import { defaultCacheSize, inPool } from './parked-scale';

/** One worker process of a measurement: its client, and the health file that reports its workflow cache. */
interface ParkingWorker {
  process: WorkerProcess;
  agents: AgentClient;
  healthFile: string;
  /** Where the worker writes its memory after each SIGWINCH collection. */
  memoryFile: string;
}

type Kind = 'run' | 'thread';

/** Items parked (then terminated) in each worker process before its idle RSS is read. */
const WARM_UP = 10;

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/**
 * Where the measured workers run workflows: on the main thread (the SDK's debug mode,
 * TEMPORAL_DEBUG=1) by default, so that a collection reaches the workflows' heap and the figures
 * hold only live memory; BENCH_PARKED_WORKFLOW_THREADS=1 keeps the SDK's workflow thread, whose
 * uncollected garbage then counts too. A cached workflow's objects are the same either way.
 */
const WORKFLOWS_ON_MAIN_THREAD = process.env.BENCH_PARKED_WORKFLOW_THREADS !== '1';

/** A `durable-agents worker` process with `--expose-gc` (SIGWINCH collects its heap and reports its memory), its own task queue, and a health file. */
async function startParkingWorker(
  stack: BenchStack,
  folder: string,
  label: string,
  maxCachedWorkflows?: number,
  onMainThread = WORKFLOWS_ON_MAIN_THREAD,
): Promise<ParkingWorker> {
  const taskQueue = `${label}-${randomUUID()}`;
  const healthFile = path.join(folder, `${taskQueue}.health.json`);
  const memoryFile = path.join(folder, `${taskQueue}.memory.json`);
  const environment = {
    TEMPORAL_ADDRESS: stack.server.address,
    CRASH_LOG: path.join(folder, `${label}.log`),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --expose-gc`.trim(),
    AGENT_WORKER_HEALTH_FILE: healthFile,
    PARKING_MEMORY_FILE: memoryFile,
    ...(onMainThread ? { TEMPORAL_DEBUG: '1' } : {}),
    ...(maxCachedWorkflows !== undefined ? { AGENT_MAX_CACHED_WORKFLOWS: String(maxCachedWorkflows) } : {}),
  };
  const worker = await startWorkerProcess(taskQueue, environment, path.join(__dirname, 'parking-tools.ts'));
  return { process: worker, agents: new AgentClient(stack.agents.temporal, { taskQueue }), healthFile, memoryFile };
}

/** The worker's RSS and used heap after a collection and a moment to settle (median of three reads each). */
async function settledMemory(worker: ParkingWorker): Promise<{ rss: number; heapUsed: number }> {
  const rss: number[] = [];
  const heapUsed: number[] = [];
  for (let read = 0; read < 3; read++) {
    worker.process.child.kill('SIGWINCH');
    await sleep(1_000);
    rss.push(rssOf(worker.process.child.pid!));
    if (existsSync(worker.memoryFile)) heapUsed.push((JSON.parse(readFileSync(worker.memoryFile, 'utf8')) as { heapUsed: number }).heapUsed);
  }
  // No memory file (a worker without parking-tools): heapUsed has no reads and its median is NaN.
  return { rss: median(rss), heapUsed: median(heapUsed) };
}

/** Workflows in the worker's cache, from its health file (written every 5 s). */
async function cachedWorkflows(worker: ParkingWorker): Promise<number> {
  await sleep(5_500);
  return existsSync(worker.healthFile)
    ? (JSON.parse(readFileSync(worker.healthFile, 'utf8')) as { numCachedWorkflows: number }).numCachedWorkflows
    : -1;
}

/** Parks one run on an approval, or one thread after its first turn; resolves once it waits. */
async function parkOne(worker: ParkingWorker, kind: Kind, name: string, script: string, index: number): Promise<string> {
  if (kind === 'thread') {
    const thread = worker.agents.thread(`${name}-${index}`, { config: { name, model: `scripted:${script}` } });
    await (await thread.send('hello')).result();
    return thread.threadId;
  }
  const run = await worker.agents.startRun({
    config: { name, model: `scripted:${script}`, tools: ['record'], hitl_tools: ['record'] },
    task: 'wait',
  });
  for await (const event of run.events()) if (event.type === 'approval-requested') break;
  return run.workflowId;
}

/** Each kind's figures in one worker process: RSS per parked item after gc, and the cache. */
async function parkedCost(stack: BenchStack, folder: string, kind: Kind, count: number, scripts: Record<Kind, string>, maxCachedWorkflows?: number) {
  const worker = await startParkingWorker(stack, folder, `parked-${kind}`, maxCachedWorkflows);
  try {
    const name = `parked-${kind}-${randomUUID().slice(0, 8)}`;
    // Warm-up: the first items load the workflow bundle and compile code; their memory is not theirs.
    const warmUp: string[] = [];
    for (let index = 0; index < WARM_UP; index++) warmUp.push(await parkOne(worker, kind, `${name}-warm-up`, scripts[kind], index));
    await inPool(warmUp, 20, async (id) => void (await stack.agents.temporal.workflow.getHandle(id).terminate('warm-up')));
    await sleep(2_000);
    const idle = await settledMemory(worker);
    const ids: string[] = [];
    // One after another: each is parked before the next starts, for runs and threads alike.
    for (let index = 0; index < count; index++) ids.push(await parkOne(worker, kind, name, scripts[kind], index));
    const cached = await cachedWorkflows(worker);
    const parked = await settledMemory(worker);
    await inPool(ids, 20, async (id) => void (await stack.agents.temporal.workflow.getHandle(id).terminate('bench finished')));
    return {
      perItemKiB: (parked.rss - idle.rss) / count / 1024,
      heapPerItemKiB: (parked.heapUsed - idle.heapUsed) / count / 1024,
      idle: idle.rss,
      parked: parked.rss,
      cached,
    };
  } finally {
    await worker.process.kill('SIGTERM');
  }
}

/**
 * Memory of a thread parked between turns against a run parked on an approval: each in a fresh
 * worker process, parked one after another, RSS read after a collection, with the default cache
 * (all of them cached: the health file's count says so) and with a cache of 10 (none of them
 * cached beyond 10). The difference per item is what the cache holds for each; rounds interleave
 * the kinds.
 */
export async function measureParkedThreads(stack: BenchStack, folder: string, count: number, rounds = 2): Promise<void> {
  const runScript = path.join(folder, 'parked-run-model.yaml');
  writeFileSync(runScript, stringifyYaml({ replies: [{ toolCalls: [{ name: 'record', args: { label: 'x' } }] }, { text: 'done' }] }));
  const threadScript = path.join(folder, 'parked-thread-model.yaml');
  writeFileSync(threadScript, stringifyYaml({ replies: [{ text: 'first answer' }] }));
  const scripts = { run: runScript, thread: threadScript };
  const where = WORKFLOWS_ON_MAIN_THREAD ? 'workflows on the main thread (TEMPORAL_DEBUG=1)' : "workflows in the SDK's worker thread";
  console.log(
    `Memory per parked item, ${count} parked one after another in a fresh worker process each (${where}; RSS and used heap after gc; ${rounds} interleaved rounds):`,
  );
  for (let round = 1; round <= rounds; round++) {
    for (const kind of ['run', 'thread'] as const) {
      const cachedAll = await parkedCost(stack, folder, kind, count, scripts);
      const cachedTen = await parkedCost(stack, folder, kind, count, scripts, 10);
      console.log(
        `  round ${round}, ${kind}: default cache +${cachedAll.perItemKiB.toFixed(0)} KiB RSS, +${cachedAll.heapPerItemKiB.toFixed(0)} KiB heap each (${cachedAll.cached} cached, RSS ${mib(cachedAll.idle)} → ${mib(cachedAll.parked)}), ` +
          `cache of 10 +${cachedTen.perItemKiB.toFixed(0)} KiB RSS, +${cachedTen.heapPerItemKiB.toFixed(0)} KiB heap each (${cachedTen.cached} cached); ` +
          `in the cache ${(cachedAll.perItemKiB - cachedTen.perItemKiB).toFixed(0)} KiB RSS, ${(cachedAll.heapPerItemKiB - cachedTen.heapPerItemKiB).toFixed(0)} KiB heap each`,
      );
    }
  }
}

/** Bytes of the dev server's database files (SQLite and its write-ahead log). */
function databaseBytes(dbFile: string): number {
  return [dbFile, `${dbFile}-wal`, `${dbFile}-shm`].reduce((sum, file) => sum + (existsSync(file) ? statSync(file).size : 0), 0);
}

/**
 * `count` threads parked between turns on one worker process (default cache): created 50 at a
 * time, each with its first message answered; the creation rate, the worker's RSS and cache, the
 * server's RSS and database growth; then a sample answers a second message (evicted threads
 * replay first). Opt-in: `BENCH_ONLY=parked-threads-scale BENCH_PARKED_THREADS=10000`.
 */
export async function measureParkedThreadsScale(stack: BenchStack, folder: string, count: number, sample: number): Promise<void> {
  const script = path.join(folder, 'parked-scale-thread-model.yaml');
  writeFileSync(script, stringifyYaml({ replies: [{ text: 'first answer' }, { text: 'second answer' }] }));
  // At scale the worker runs as in production, workflows in their thread.
  const worker = await startParkingWorker(stack, folder, 'parked-threads-scale', undefined, false);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(worker.process.child.pid!))), 1_000);
  try {
    await sleep(2_000);
    const idle = (await settledMemory(worker)).rss;
    const serverBefore = rssOf(stack.server.pid);
    const databaseBefore = databaseBytes(stack.server.dbFile);
    const name = `parked-thread-${randomUUID().slice(0, 8)}`;
    const threads: ThreadHandle[] = Array.from({ length: count }, (_, index) =>
      worker.agents.thread(`${name}-${index}`, { config: { name, model: `scripted:${script}` } }),
    );
    const started = performance.now();
    await inPool(threads, 50, async (thread) => {
      await (await thread.send('hello')).result();
    });
    const createSeconds = (performance.now() - started) / 1000;
    const cached = await cachedWorkflows(worker);
    const parked = (await settledMemory(worker)).rss;
    const serverAfter = rssOf(stack.server.pid);
    const databaseAfter = databaseBytes(stack.server.dbFile);
    const idleCount = (await stack.agents.temporal.workflow.count(`AgentName = '${name}' AND AgentStatus = 'idle' AND ExecutionStatus = 'Running'`))
      .count;
    console.log(`${count} threads parked between turns, one worker process (workflow cache ${defaultCacheSize()}, the default):`);
    console.log(
      `  created and answered in ${createSeconds.toFixed(0)} s (${(count / createSeconds).toFixed(1)} threads/s, 50 at a time); ${idleCount} listed idle; ${cached} in the cache`,
    );
    console.log(
      `  worker RSS idle ${mib(idle)}, all parked ${mib(parked)} (+${((parked - idle) / count / 1024).toFixed(0)} KiB per thread), peak ${mib(peak)}`,
    );
    console.log(
      `  server RSS ${mib(serverBefore)} → ${mib(serverAfter)}; database +${mib(databaseAfter - databaseBefore)} (${((databaseAfter - databaseBefore) / count / 1024).toFixed(1)} KiB per thread)`,
    );

    // A sample spread over the whole range (most of them evicted from the cache) answers again.
    const step = Math.max(1, Math.floor(count / sample));
    const chosen = threads.filter((_, index) => index % step === 0).slice(0, sample);
    const answerStarted = performance.now();
    let answered = 0;
    await inPool(chosen, 50, async (thread) => {
      const result = await (await thread.send('again')).result();
      if (result.turn === 2 && result.output === 'second answer') answered++;
    }).catch((error: unknown) => {
      // What the worker said about failed or timed-out workflow tasks, for the report.
      const said = worker.process
        .output()
        .split('\n')
        .filter((line) => /workflow task|nondetermin|TMPRL|error/i.test(line));
      console.log(`  the second messages stopped: ${(error as Error).message}; the worker's last lines about it:\n${said.slice(-20).join('\n')}`);
      throw error;
    });
    const answerSeconds = (performance.now() - answerStarted) / 1000;
    console.log(
      `  a second message to ${chosen.length} of them: ${answered} answered as turn 2 in ${answerSeconds.toFixed(0)} s (${(chosen.length / answerSeconds).toFixed(1)} turns/s), peak RSS ${mib(peak)}`,
    );
    await inPool(threads, 50, async (thread) => void (await thread.run.workflow.terminate('bench finished').catch(() => undefined)));
  } finally {
    clearInterval(sampler);
    await worker.process.kill('SIGTERM');
  }
}
