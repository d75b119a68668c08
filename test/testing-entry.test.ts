import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { z } from 'zod';
import { findOrBuildTemporalCli } from '../src/devserver/temporal-cli';
import { AgentConfigError } from '../src/protocol/errors';
import { agentSearchAttributes, startAgentTestWorker, type AgentTestWorker } from '../src/testing';
import { defineTool } from '../src/tools/define-tool';
import type { greetThroughAgent } from './support/user-workflows';

/**
 * `durable-agents/testing` as a user's test uses it: a `TestWorkflowEnvironment` from
 * `@temporalio/testing` started with the agent search attributes, a worker with the plugin and the
 * scripted model on it, real tools, and the user's own workflows beside the agent's.
 */

const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'Finds an order by id',
  parameters: z.object({ orderId: z.string() }),
  execute: async ({ orderId }) => `order ${orderId} shipped`,
});

const scripts = {
  support: {
    replies: [
      { toolCalls: [{ name: 'lookup_order', args: { orderId: '42' } }] },
      { text: 'Order 42: {{tool:lookup_order}}' },
      { text: 'a reply no step reaches' },
    ],
  },
  hello: { replies: [{ text: 'Hello!' }] },
};

describe('durable-agents/testing', () => {
  let environment: TestWorkflowEnvironment;
  let testWorker: AgentTestWorker;

  beforeAll(async () => {
    const cli = await findOrBuildTemporalCli();
    environment = await TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'existing-path', path: cli }, searchAttributes: [...agentSearchAttributes] },
    });
    // The agent bundle the test run built once (a user's worker takes the package's prebuilt one).
    testWorker = await startAgentTestWorker(environment, {
      tools: [lookupOrder],
      scripts,
      workerOptions: { workflowBundle: { codePath: process.env.AGENT_WORKFLOW_BUNDLE! } },
    });
  }, 120_000);

  afterAll(async () => {
    await testWorker?.close();
    await environment?.teardown();
  });

  it('runs an agent with a real tool and the scripted model, recording each model call and the replies left unused', async () => {
    const run = await testWorker.agents.startRun({
      config: { name: 'support', model: 'scripted:support', tools: ['lookup_order'] },
      task: 'Where is order 42?',
    });
    const result = await run.result();
    expect(result).toMatchObject({ output: 'Order 42: order 42 shipped', stopReason: 'completed', steps: 2 });
    expect(testWorker.modelCalls.map((call) => [call.modelId, call.replyIndex])).toEqual([
      ['support', 0],
      ['support', 1],
    ]);
    expect(testWorker.scripted.unusedReplies()).toEqual(['support: executor reply 3 of 3', 'hello: executor reply 1 of 1']);
  });

  it('refuses a blank task with AgentConfigError, starting nothing', async () => {
    const callsBefore = testWorker.modelCalls.length;
    const error = await testWorker.agents
      .startRun({ config: { name: 'support', model: 'scripted:support' }, task: '  ' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentConfigError);
    expect(error).toMatchObject({ code: 'AgentConfigError', problems: ['task: must not be empty'] });
    const notString = await testWorker.agents
      .startRun({ config: { name: 'support' }, task: undefined as unknown as string })
      .catch((caught: unknown) => caught);
    expect(notString).toMatchObject({ code: 'AgentConfigError', problems: ['task: must be a string, not undefined'] });
    expect(testWorker.modelCalls.length).toBe(callsBefore);
  });

  it('removes its temporary folder when closed', async () => {
    const other = await startAgentTestWorker(environment, { workerOptions: { workflowBundle: { codePath: process.env.AGENT_WORKFLOW_BUNDLE! } } });
    expect(existsSync(other.dataFolder)).toBe(true);
    await other.close();
    expect(existsSync(other.dataFolder)).toBe(false);
  });

  describe("with the user's own workflows (runAgent)", () => {
    let userWorker: AgentTestWorker;
    beforeAll(async () => {
      userWorker = await startAgentTestWorker(environment, {
        scripts,
        workerOptions: { workflowsPath: require.resolve('./support/user-workflows') },
      });
    }, 240_000);
    afterAll(async () => userWorker?.close());

    it('runs the agent as a child of the user workflow', async () => {
      const answer = await environment.client.workflow.execute<typeof greetThroughAgent>('greetThroughAgent', {
        taskQueue: userWorker.taskQueue,
        workflowId: `greet-${Date.now()}`,
        args: ['Say hello'],
      });
      expect(answer).toBe('Hello!');
    });

    it('fails the user workflow with AgentConfigError for a blank task, as the client refuses it', async () => {
      const error = await environment.client.workflow
        .execute<typeof greetThroughAgent>('greetThroughAgent', {
          taskQueue: userWorker.taskQueue,
          workflowId: `greet-blank-${Date.now()}`,
          args: [' '],
        })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WorkflowFailedError);
      const cause = (error as WorkflowFailedError).cause;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect(cause).toMatchObject({ type: 'AgentConfigError', nonRetryable: true, message: 'task: must not be empty' });
    });
  });
});
