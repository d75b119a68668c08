// A tools module with a before-tool hook, for the worker processes of the hook crash test (`worker --tools`).
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { defineHook } from '../../src/hooks/define-hook';
import { defineTool } from '../../src/tools/define-tool';

/**
 * The hook caps refunds at 99 and logs each decision to CRASH_LOG; with KILL_IN_HOOK (a marker
 * file) the process SIGKILLs itself right after deciding, the first time. The tool logs each
 * execution; with KILL_IN_TOOL (a marker file) it SIGKILLs its process at its first execution,
 * after the decision was recorded with the model step.
 */
function log(line: string): void {
  appendFileSync(process.env.CRASH_LOG!, `${line}\n`);
}

/** SIGKILLs this worker process the first time `marker` (an environment variable naming a file) is met. */
function dieOnce(marker: string | undefined): void {
  if (!marker || existsSync(marker)) return;
  writeFileSync(marker, String(process.pid));
  process.kill(process.pid, 'SIGKILL');
}

export const tools = [
  defineTool({
    name: 'refund',
    description: 'Refunds an order.',
    parameters: z.object({ order: z.string(), amount: z.number() }),
    execute: ({ order, amount }) => {
      log(`start ${order} ${amount} ${process.pid}`);
      dieOnce(process.env.KILL_IN_TOOL);
      log(`done ${order} ${amount}`);
      return `refunded ${amount} for ${order}`;
    },
  }),
];

export const hooks = [
  defineHook({
    name: 'refund-cap',
    point: 'before-tool',
    run: ({ call }) => {
      const amount = Math.min(Number(call.args.amount), 99);
      log(`decided ${String(call.args.order)} ${amount} ${process.pid}`);
      dieOnce(process.env.KILL_IN_HOOK);
      return { action: 'modify', args: { ...call.args, amount }, reason: 'refunds are capped at 99' };
    },
  }),
];
