import { appendFileSync, existsSync } from 'node:fs';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool';

/**
 * Tools for the process-level tests (worker killed, server restarted). They log each execution to
 * the file named by CRASH_LOG, so the test can count executions across processes.
 */
function log(line: string): void {
  const file = process.env.CRASH_LOG;
  if (!file) throw new Error('CRASH_LOG is not set');
  appendFileSync(file, `${line}\n`);
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
];
