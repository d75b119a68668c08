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
  return { tools: [add, echo, explode, flaky, noop], executions };
}
