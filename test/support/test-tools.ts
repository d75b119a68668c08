import { z } from 'zod';
import { defineTool, RetryableToolError } from '../../src/tools/define-tool';

/** Tools for tests: each records its executions so tests can count them. */
export function createTestTools() {
  const executions: Array<{ tool: string; args: unknown }> = [];
  const record = (tool: string, args: unknown) => executions.push({ tool, args });
  const add = defineTool({
    name: 'add',
    description: 'Adds two numbers.',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: (args) => {
      record('add', args);
      return String(args.a + args.b);
    },
  });
  const echo = defineTool({
    name: 'echo',
    description: 'Returns its text.',
    parameters: z.object({ text: z.string() }),
    execute: (args) => {
      record('echo', args);
      return args.text;
    },
  });
  const explode = defineTool({
    name: 'explode',
    description: 'Always throws.',
    parameters: z.object({}),
    execute: () => {
      record('explode', {});
      throw new Error('the fuse was lit');
    },
  });
  let flakyFailures = 0;
  const flaky = defineTool({
    name: 'flaky',
    description: 'Fails transiently twice, then succeeds.',
    parameters: z.object({}),
    execute: () => {
      record('flaky', {});
      if (flakyFailures++ < 2) throw new RetryableToolError('temporarily unavailable');
      return 'recovered';
    },
  });
  const noop = defineTool({
    name: 'noop',
    description: 'Does nothing.',
    parameters: z.object({}),
    execute: () => 'ok',
  });
  const bulk = defineTool({
    name: 'bulk',
    description: 'Returns a long text of the given number of words.',
    parameters: z.object({ words: z.number().int().min(1) }),
    execute: ({ words }) => 'lorem '.repeat(words).trim(),
  });
  let releaseGate: () => void = () => {};
  let gateOpen = new Promise<void>((resolve) => (releaseGate = resolve));
  let gateEntered: () => void = () => {};
  let gateReached = new Promise<void>((resolve) => (gateEntered = resolve));
  const gate = defineTool({
    name: 'gate',
    description: 'Waits until the test opens the gate.',
    parameters: z.object({}),
    execute: async () => {
      gateEntered();
      await gateOpen;
      return 'gate passed';
    },
  });
  const progressive = defineTool({
    name: 'progressive',
    description: 'Reports progress three times.',
    parameters: z.object({}),
    execute: (_args, context) => {
      for (let done = 1; done <= 3; done++) context.reportProgress(done, 3, `part ${done}`);
      return 'all parts done';
    },
  });
  const gateControl = {
    /** Resolves when a run is inside the gate tool. */
    reached: () => gateReached,
    open: () => releaseGate(),
    reset: () => {
      gateOpen = new Promise<void>((resolve) => (releaseGate = resolve));
      gateReached = new Promise<void>((resolve) => (gateEntered = resolve));
    },
  };
  const transferFunds = defineTool({
    name: 'transfer_funds',
    description: 'Moves money (only the top-level agent may).',
    parameters: z.object({ amount: z.number() }),
    childSafe: false,
    execute: ({ amount }) => `moved ${amount}`,
  });
  return { tools: [add, echo, explode, flaky, noop, bulk, gate, progressive, transferFunds], executions, gateControl };
}
