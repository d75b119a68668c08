// Agent configs a worker refuses when a run starts: the problems only the worker's tools reveal (the config's own rules are test/unit/agent-config.test.ts).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { demoTools } from '../src/tools/demo-tools';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';

describe('config problems only a worker sees (it has the tools)', () => {
  let env: TestEnvironment;
  beforeAll(async () => {
    env = await createTestEnvironment({ tools: demoTools, scripts: { never: { replies: [{ text: 'the model should not be called' }] } } });
  });
  afterAll(async () => env?.close());

  async function failureOf(config: Record<string, unknown>): Promise<ApplicationFailure> {
    const run = await env.agents.startRun({ config: { name: 'refused', model: 'scripted:never', ...config }, task: 'Try' });
    const error = await run.result().catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    return cause as ApplicationFailure;
  }

  it('fails the run at its first step, before any model call, when an injected arg is also a parameter of one of its tools', async () => {
    const callsBefore = env.modelCalls.length;
    const failure = await failureOf({ tools: ['get_weather', 'get_timezone'], injected_tool_args: { city: 'The city the user asked about' } });
    expect(failure.type).toBe('AgentConfigError');
    expect(failure.message).toContain("injected_tool_args.city: is also a parameter of tool 'get_weather'");
    expect(failure.message).toContain("injected_tool_args.city: is also a parameter of tool 'get_timezone'");
    expect(env.modelCalls.length).toBe(callsBefore);
  });

  it('fails the run with AgentConfigError when output_type is not a valid JSON Schema (a config given as an object)', async () => {
    const failure = await failureOf({ output_type: { type: 'object', required: 'city' } });
    expect(failure.type).toBe('AgentConfigError');
    expect(failure.message).toContain('output_type: is not a valid JSON Schema: schema is invalid: data/required must be array');
  });
});
