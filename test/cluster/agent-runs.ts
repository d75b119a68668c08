import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { stringify as stringifyYaml } from 'yaml';
import type { AgentClient, RunHandle } from '../../src/client/agent-client';
import type { AgentRunResult } from '../../src/protocol/run-types';
import { chaosExecutions, type ChaosExecution } from '../support/crash-tools';

/**
 * Agent runs for the cluster test: a scripted model whose steps call the chaos tools (which log
 * every execution with its idempotency key and worker pid), started many at once and awaited.
 */
export interface RunPlan {
  /** The agent's name: visibility finds a scenario's runs by it (AgentName). */
  name: string;
  /** Each step's tool calls (label, how long the tool works), then a final answer. */
  steps: Array<Array<{ label: string; ms: number }>>;
  /** Gate the step-1 calls behind an approval (they use `chaos_gated`). */
  gated?: boolean;
}

export const FINAL_ANSWER = 'all steps done';

/** Writes the plan's model script into `folder`; returns the `scripted:` model name. */
export function writeModel(folder: string, plan: RunPlan): string {
  const file = path.join(folder, `${plan.name}.yaml`);
  const replies = plan.steps.map((calls, step) => ({
    toolCalls: calls.map(({ label, ms }) => ({ name: plan.gated && step === 0 ? 'chaos_gated' : 'chaos_work', args: { label, ms } })),
  }));
  writeFileSync(file, stringifyYaml({ replies: [...replies, { text: FINAL_ANSWER }] }));
  return `scripted:${file}`;
}

export function startRuns(agents: AgentClient, folder: string, plan: RunPlan, count: number): Promise<RunHandle[]> {
  const model = writeModel(folder, plan);
  return Promise.all(
    Array.from({ length: count }, (_, index) =>
      agents.startRun({
        workflowId: `${plan.name}-${index}-${randomUUID().slice(0, 8)}`,
        config: { name: plan.name, model, tools: ['chaos_work', 'chaos_gated'], hitl_tools: plan.gated ? ['chaos_gated'] : [], hitl_timeout: '1h' },
        task: `${plan.name} run ${index}`,
        timeouts: { heartbeatMs: 2_000 },
      }),
    ),
  );
}

/** Every run's result; a run that fails or does not finish in time becomes an Error naming it. */
export async function settle(runs: RunHandle[], timeoutMs: number): Promise<Array<AgentRunResult | Error>> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not finished within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.all(
      runs.map((run) =>
        Promise.race([run.result(), timedOut]).catch(
          (error: unknown) => new Error(`${run.workflowId}: ${error instanceof Error ? error.message : String(error)}`),
        ),
      ),
    );
  } finally {
    clearTimeout(timer);
  }
}

/** The failures among `results` (expected: none), and the tool results each completed run should have. */
export function problems(results: Array<AgentRunResult | Error>, plan: RunPlan): string[] {
  const expected = JSON.stringify(plan.steps.flatMap((calls, index) => calls.map((call) => [index + 1, `worked ${call.label}`])));
  return results.flatMap((result) => {
    if (result instanceof Error) return [result.message];
    const got = JSON.stringify(result.toolResults.map((toolResult) => [toolResult.step, toolResult.content]));
    if (result.output !== FINAL_ANSWER || got !== expected) return [`${result.output}: tool results ${got}, expected ${expected}`];
    return [];
  });
}

/** The chaos tools' executions logged in `logFile` for the given runs. */
export function executionsOf(logFile: string, runs: RunHandle[]): ChaosExecution[] {
  const ids = new Set(runs.map((run) => run.workflowId));
  const all = existsSync(logFile) ? chaosExecutions(readFileSync(logFile, 'utf8')) : [];
  return all.filter((execution) => ids.has(execution.idempotencyKey.split('/')[0]!));
}

/** Tool calls (idempotency keys) of `executions` that started but never completed: none may be left. */
export function unfinishedCalls(executions: ChaosExecution[]): string[] {
  const done = new Set(executions.filter((execution) => execution.phase === 'done').map((execution) => execution.idempotencyKey));
  return [...new Set(executions.filter((execution) => !done.has(execution.idempotencyKey)).map((execution) => execution.idempotencyKey))];
}
