import { appendFileSync, existsSync } from 'node:fs';
import { z } from 'zod';
import { defineTool, type ToolContext } from '../../src/tools/define-tool';

/**
 * Tools for the process-level tests (worker killed, server restarted). They log each execution to
 * the file named by CRASH_LOG, so the test can count executions across processes.
 */
function log(line: string): void {
  const file = process.env.CRASH_LOG;
  if (!file) throw new Error('CRASH_LOG is not set');
  appendFileSync(file, `${line}\n`);
}

/** One execution of a chaos tool, as logged (a JSON line) when it starts and when it is done. */
export interface ChaosExecution {
  phase: 'start' | 'done';
  tool: string;
  label: string;
  idempotencyKey: string;
  attempt: number;
  pid: number;
  at: number;
}

/** Works `ms` milliseconds (stopping when the activity is cancelled), logging each execution. */
async function chaosWork(tool: string, { label, ms }: { label: string; ms: number }, context: ToolContext): Promise<string> {
  const entry = { tool, label, idempotencyKey: context.idempotencyKey, attempt: context.attempt, pid: process.pid };
  log(JSON.stringify({ phase: 'start', ...entry, at: Date.now() }));
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (context.signal.aborted) throw new Error('cancelled');
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, until - Date.now())));
  }
  log(JSON.stringify({ phase: 'done', ...entry, at: Date.now() }));
  return `worked ${label}`;
}

/** The chaos test's tools: the same work, ungated (`chaos_work`) or gated by the configs (`chaos_gated`). */
export const chaosTools = ['chaos_work', 'chaos_gated'].map((name) =>
  defineTool({
    name,
    description: 'Works for a while and logs each execution with its idempotency key and attempt.',
    parameters: z.object({ label: z.string(), ms: z.number().int().min(0) }),
    execute: (args, context) => chaosWork(name, args, context),
  }),
);

/** The executions logged in a CRASH_LOG file by the chaos tools (other tools' lines are skipped). */
export function chaosExecutions(text: string): ChaosExecution[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as ChaosExecution);
}

export const tools = [
  defineTool({
    name: 'record',
    description: 'Records a label.',
    parameters: z.object({ label: z.string() }),
    execute: ({ label }) => {
      log(`done ${label}`);
      return `recorded ${label}`;
    },
  }),
  defineTool({
    name: 'wait_for_release',
    description: 'Waits until the file named by `release` exists.',
    parameters: z.object({ label: z.string(), release: z.string() }),
    execute: async ({ label, release }, context) => {
      log(`start ${label}`);
      while (!existsSync(release)) {
        if (context.signal.aborted) throw new Error('cancelled');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      log(`done ${label}`);
      return `released ${label}`;
    },
  }),
  ...chaosTools,
];
