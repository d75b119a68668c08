// A tools module whose hooks hang once after the provider answered, for the worker processes of the spend crash test (`worker --tools`).
import { existsSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { defineHook } from '../../src/hooks/define-hook';
import { defineTool } from '../../src/tools/define-tool';

/**
 * With HANG_BEFORE_TOOL (a marker file), the before-tool hook hangs the first time, after the
 * provider answered and the step kept its reply; with HANG_AFTER_MODEL, the after-model hook hangs
 * the first time, before the reply is kept (only its billed usage is). The test SIGKILLs the
 * worker while the hook hangs. Otherwise the before-tool hook allows explicitly (recorded in
 * `decided_by`) and the after-model hook changes nothing.
 */
function hangOnce(marker: string | undefined): Promise<void> | null {
  if (!marker || existsSync(marker)) return null;
  writeFileSync(marker, String(process.pid));
  return new Promise<void>(() => undefined);
}

export const tools = [
  defineTool({
    name: 'note',
    description: 'Notes a text.',
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => `noted ${text}`,
  }),
];

export const hooks = [
  defineHook({
    name: 'slow-redact',
    point: 'after-model',
    timeoutMs: 120_000,
    run: async () => {
      await hangOnce(process.env.HANG_AFTER_MODEL);
      return undefined;
    },
  }),
  defineHook({
    name: 'slow-check',
    point: 'before-tool',
    timeoutMs: 120_000,
    run: async () => {
      await hangOnce(process.env.HANG_BEFORE_TOOL);
      return { action: 'allow' as const };
    },
  }),
];
