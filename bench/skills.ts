import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import type { RunHandle } from '../src/client/agent-client';
import { LocalFolderWatcher } from '../src/skills/local-folder-watcher';
import { RunNotifier } from '../src/skills/run-notifier';
import { SkillSyncManager } from '../src/skills/skill-sync-manager';
import { skillMarkdown, writeSkill } from '../test/support/skill-files';
import { ms, type BenchStack } from './bench-stack';

const DEBOUNCE_MS = 500;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function parkRuns(stack: BenchStack, root: string, count: number): Promise<RunHandle[]> {
  const runs: RunHandle[] = [];
  for (let index = 0; index < count; index++) {
    runs.push(
      await stack.agents.startRun({
        config: { name: 'skilled', model: 'scripted:gated-step', tools: ['gate'], skill_sources: [root] },
        task: 'wait',
      }),
    );
  }
  for (const run of runs) while (!stack.gates.has(run.workflowId)) await new Promise((resolve) => setTimeout(resolve, 10));
  return runs;
}

async function release(stack: BenchStack, runs: RunHandle[]): Promise<void> {
  for (const run of runs) stack.gates.get(run.workflowId)?.();
  await Promise.all(runs.map((run) => run.result()));
}

/**
 * Time from writing a SKILL.md to the running run having the new tool (p50 / p95 over `changes`),
 * beside the watcher's debounce; and the cost of pushing one batch to 100 running runs.
 */
export async function measureSkills(stack: BenchStack, folder: string, changes = 20): Promise<void> {
  const root = mkdtempSync(path.join(folder, 'skills-'));
  const manager = new SkillSyncManager();
  manager.addWatcher(new LocalFolderWatcher(root, { debounceMs: DEBOUNCE_MS }));
  const notifier = new RunNotifier(stack.agents.temporal, { settleMs: 0 });
  manager.onBatch(async (batch) => void (await notifier.notify(batch)));
  await manager.start();
  try {
    const [run] = await parkRuns(stack, root, 1);
    const latencies: number[] = [];
    for (let change = 1; change <= changes; change++) {
      const written = performance.now();
      writeSkill(root, `skill-${change}`, skillMarkdown(`skill-${change}`, `Skill ${change}`, [`tool_${change}`]));
      while (!(await run!.status()).activeTools.includes(`tool_${change}`)) await new Promise((resolve) => setTimeout(resolve, 5));
      latencies.push(performance.now() - written);
    }
    await release(stack, [run!]);
    console.log(`Skill change → running run has the tool (${changes} changes, watcher debounce ${DEBOUNCE_MS} ms):`);
    console.log(
      `  p50 ${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))} (debounce included; ratio p50 / debounce ${(percentile(latencies, 50) / DEBOUNCE_MS).toFixed(2)})`,
    );
  } finally {
    await manager.stop();
  }

  const fanoutRoot = mkdtempSync(path.join(folder, 'fanout-'));
  const runs = await parkRuns(stack, fanoutRoot, 100);
  const batch = {
    source: fanoutRoot,
    version: 1,
    previousHash: runs.length ? (await runs[0]!.status()).skills[0]!.hash : '',
    hash: 'next',
    changes: [],
    errors: [],
  };
  const started = performance.now();
  const result = await notifier.notify(batch);
  const elapsed = performance.now() - started;
  await release(stack, runs);
  console.log(
    `Pushing one batch to 100 running runs (visibility query + 100 signals): ${ms(elapsed)}, ${ms(elapsed / 100)} per run (${result.signalled} signalled, ${result.failed} failed)`,
  );
}
