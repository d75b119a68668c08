import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time';
import { NativeConnection, Worker } from '@temporalio/worker';
import { RunHandle } from '../src/client/run-handle';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import { ScriptedModel } from '../src/models/scripted-model';
import { AgentPlugin } from '../src/worker/agent-plugin';
import { defaultModelRegistry } from '../src/worker/default-models';
import { recordHistory } from './support/history-recorder';
import type { answerTicket, answerTicketCapped } from './support/parent-workflows';
import { eventually } from './support/test-env';
import { createTestTools } from './support/test-tools';
import { userWorkflowBundle } from './support/user-workflow-bundle';

/**
 * `runAgent` in a user's own workflow (bundled with ours by the plugin, as users' workers do), on
 * the real dev server: in a namespace with the runtime's search attributes it returns the agent's
 * answer; in one without them (a plain `temporal server start-dev`) the user's workflow fails at
 * once with `SearchAttributesMissing`, where it used to retry its workflow task for ever. Their
 * histories (scenarios `run-agent*`) replay in test/replay.test.ts against the same bundle.
 */
const target = resolveTemporalTarget();
let connection: Connection;
let nativeConnection: NativeConnection;
let code: string;

beforeAll(async () => {
  connection = await Connection.connect(target.connectionOptions);
  nativeConnection = await NativeConnection.connect(target.connectionOptions);
  code = await userWorkflowBundle();
}, 240_000);

afterAll(async () => {
  await connection?.close();
  await nativeConnection?.close();
});

/** Runs `body` while a worker with the agent plugin and the user's workflows polls a fresh task queue of `namespace`. */
async function withWorker<T>(namespace: string, body: (client: Client, taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `parent-${randomUUID()}`;
  const scripted = new ScriptedModel({ scripts: { support: { replies: [{ text: 'Your order ships tomorrow.' }] } } });
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace,
    taskQueue,
    workflowBundle: { code },
    plugins: [new AgentPlugin({ tools: createTestTools().tools, models: defaultModelRegistry(scripted) })],
    // A nondeterminism error fails the test instead of retrying the task forever.
    workflowFailureErrorTypes: { '*': ['DeterminismViolationError'] },
  });
  return worker.runUntil(body(new Client({ connection, namespace }), taskQueue));
}

describe('runAgent in your own workflow', () => {
  it("returns the agent's answer, the agent running as a child workflow", async () => {
    const answer = await withWorker(target.namespace, async (client, taskQueue) => {
      const handle = await client.workflow.start<typeof answerTicket>('answerTicket', {
        taskQueue,
        workflowId: `ticket-${randomUUID().slice(0, 8)}`,
        args: ['Where is order 7?', 'scripted:support'],
      });
      const output = await handle.result();
      await recordHistory('run-agent', new RunHandle(client, handle, null));
      return output;
    });
    expect(answer).toBe('Your order ships tomorrow.');
  });

  it('starts the agent under the concurrency cap it names: the child waits for a slot of its key first', async () => {
    const { answer, activities } = await withWorker(target.namespace, async (client, taskQueue) => {
      const handle = await client.workflow.start<typeof answerTicketCapped>('answerTicketCapped', {
        taskQueue,
        workflowId: `capped-${randomUUID().slice(0, 8)}`,
        args: ['Where is order 8?', 'scripted:support', 'tenant-7'],
      });
      const result = await handle.result();
      const parentHistory = await handle.fetchHistory();
      const childId = parentHistory.events!.find((event) => event.startChildWorkflowExecutionInitiatedEventAttributes)!
        .startChildWorkflowExecutionInitiatedEventAttributes!.workflowId!;
      const childHistory = await client.workflow.getHandle(childId).fetchHistory();
      await client.workflow
        .getHandle(`durable-agents-concurrency:${taskQueue}/key:tenant-7`)
        .terminate('test over')
        .catch(() => undefined);
      return {
        answer: result,
        activities: (childHistory.events ?? []).flatMap((event) =>
          event.activityTaskScheduledEventAttributes ? [event.activityTaskScheduledEventAttributes.activityId!] : [],
        ),
      };
    });
    expect(answer).toBe('Your order ships tomorrow.');
    expect(activities).toEqual(['concurrency-slot-1', 'step-1.model']);
  });

  it('fails the workflow at once with SearchAttributesMissing, saying to run setup, in a namespace without the attributes', async () => {
    const namespace = `bare-${randomUUID().slice(0, 8)}`;
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    const failure = await withWorker(namespace, async (client, taskQueue) => {
      const workflowId = `ticket-${randomUUID().slice(0, 8)}`;
      // A namespace just created may not be known to every service for a moment.
      const handle = await eventually(
        () => client.workflow.start<typeof answerTicket>('answerTicket', { taskQueue, workflowId, args: ['Where is order 7?', 'scripted:support'] }),
        60_000,
      );
      const started = Date.now();
      const error = await handle.result().then(
        () => null,
        (caught: unknown) => caught,
      );
      const elapsedMs = Date.now() - started;
      await recordHistory('run-agent-search-attributes-missing', new RunHandle(client, handle, null));
      return { error, elapsedMs };
    });
    expect(failure.error).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure.error as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause).toMatchObject({ type: 'SearchAttributesMissing', nonRetryable: true });
    expect(cause.message).toContain(`The namespace '${namespace}' has no search attributes for agent runs`);
    expect(cause.message).toContain('AgentName');
    expect(cause.message).toContain('npx durable-agents setup');
    // One workflow task, not a retry every 10-20 s.
    expect(failure.elapsedMs).toBeLessThan(10_000);
  });
});
