import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { AgentClient, type RunHandle } from '../src/client/agent-client';
import { startWorkerProcess } from '../test/support/worker-process';
import type { signalThenActivity } from './baseline/signal-then-activity';
import { mib, median, ms, type BenchStack } from './bench-stack';

async function waitFor(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A gated run parked on its approval. */
async function parkAgentRun(stack: BenchStack): Promise<RunHandle> {
  const run = await stack.agents.startRun({ config: { name: 'gated', model: 'scripted:gated', tools: ['noop'], hitl_tools: ['noop'] }, task: 'go' });
  await waitFor(async () => (await run.status()).pendingApprovals.length === 1);
  return run;
}

async function agentApprovalLatency(stack: BenchStack): Promise<number> {
  const run = await parkAgentRun(stack);
  const sent = performance.now();
  await run.workflow.signal('approval', { approvalId: 'step-1.call-1', decision: 'approve' });
  await waitFor(() => stack.activityStarts.has(run.workflowId));
  const latency = stack.activityStarts.get(run.workflowId)! - sent;
  await run.result();
  return latency;
}

async function bareSignalLatency(stack: BenchStack): Promise<number> {
  const workflowId = `signal-${randomUUID()}`;
  const handle = await stack.agents.temporal.workflow.start<typeof signalThenActivity>('signalThenActivity', {
    taskQueue: stack.baselineTaskQueue,
    workflowId,
  });
  // Let the first workflow task finish so the workflow is parked on its condition.
  await waitFor(async () => ((await handle.fetchHistory()).events?.length ?? 0) >= 4);
  const sent = performance.now();
  await handle.signal('go');
  await waitFor(() => stack.activityStarts.has(workflowId));
  const latency = stack.activityStarts.get(workflowId)! - sent;
  await handle.result();
  return latency;
}

/** Signal-to-tool-start latency against a bare signal-then-activity workflow, interleaved. */
export async function measureApprovalLatency(stack: BenchStack, rounds: number): Promise<void> {
  await agentApprovalLatency(stack);
  await bareSignalLatency(stack);
  const agent: number[] = [];
  const bare: number[] = [];
  for (let round = 0; round < rounds; round++) {
    agent.push(await agentApprovalLatency(stack));
    bare.push(await bareSignalLatency(stack));
  }
  console.log(`Approval latency (signal sent → tool activity started; median of ${rounds} interleaved rounds):`);
  console.log(
    `  agent run: ${ms(median(agent))}, bare signal-then-activity workflow: ${ms(median(bare))}, ratio ${(median(agent) / median(bare)).toFixed(2)}`,
  );
}

/** RSS of a process, from /proc (Linux). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/**
 * Memory of a separate worker process (`durable-agents worker`) with `count` runs parked on
 * approvals: its RSS once idle, then with every run parked.
 */
export async function measureParkedMemory(stack: BenchStack, folder: string, count: number, maxCachedWorkflows?: number): Promise<void> {
  const script = path.join(folder, 'parked-model.yaml');
  writeFileSync(script, stringifyYaml({ replies: [{ toolCalls: [{ name: 'record', args: { label: 'x' } }] }, { text: 'done' }] }));
  const taskQueue = `parked-${randomUUID()}`;
  const worker = await startWorkerProcess(taskQueue, {
    TEMPORAL_ADDRESS: stack.server.address,
    CRASH_LOG: path.join(folder, 'parked.log'),
    ...(maxCachedWorkflows !== undefined ? { AGENT_MAX_CACHED_WORKFLOWS: String(maxCachedWorkflows) } : {}),
  });
  try {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const before = rssOf(worker.child.pid!);
    const agents = new AgentClient(stack.agents.temporal, { taskQueue });
    const name = `parked-${randomUUID().slice(0, 8)}`;
    const runs: RunHandle[] = [];
    for (let index = 0; index < count; index++) {
      runs.push(await agents.startRun({ config: { name, model: `scripted:${script}`, tools: ['record'], hitl_tools: ['record'] }, task: 'wait' }));
    }
    await waitFor(
      async () => (await stack.agents.temporal.workflow.count(`AgentName = '${name}' AND AgentStatus = 'awaiting_approval'`)).count === count,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = rssOf(worker.child.pid!);
    const cache = maxCachedWorkflows === undefined ? 'default workflow cache' : `workflow cache of ${maxCachedWorkflows}`;
    console.log(`Memory of a worker process with ${count} runs parked on approvals (RSS, ${cache}):`);
    console.log(
      `  idle ${mib(before)}, with ${count} parked runs ${mib(after)}: +${mib(after - before)}, ${((after - before) / count / 1024).toFixed(0)} KiB per parked run`,
    );
    await Promise.all(runs.map((run) => run.workflow.terminate('bench finished')));
  } finally {
    await worker.kill('SIGTERM');
  }
}
