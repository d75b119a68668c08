import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, ChildWorkflowFailure } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time';
import { NativeConnection, Worker } from '@temporalio/worker';
import { defineAgent, type AgentDefinition } from '../src/agents/define-agent';
import { RunHandle } from '../src/client/run-handle';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import { ErrorCode } from '../src/protocol/errors';
import { AgentNameAttribute, AgentVersionAttribute } from '../src/protocol/search-attributes';
import { ScriptedModel } from '../src/models/scripted-model';
import { AgentPlugin } from '../src/worker/agent-plugin';
import { defaultModelRegistry } from '../src/worker/default-models';
import { recordHistory } from './support/history-recorder';
import type { answerTicket, answerTicketByName, answerTicketCapped, runAgentWithOptions } from './support/parent-workflows';
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
const support = defineAgent({ config: { name: 'support', model: 'scripted:support', tools: ['echo'] }, label: 'r1' });
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
async function withWorker<T>(namespace: string, body: (client: Client, taskQueue: string) => Promise<T>, agents: AgentDefinition[] = []): Promise<T> {
  const taskQueue = `parent-${randomUUID()}`;
  const scripted = new ScriptedModel({ scripts: { support: { replies: [{ text: 'Your order ships tomorrow.' }] } } });
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace,
    taskQueue,
    workflowBundle: { code },
    plugins: [new AgentPlugin({ tools: createTestTools().tools, models: defaultModelRegistry(scripted), agents })],
    // A nondeterminism error fails the test instead of retrying the task forever.
    workflowFailureErrorTypes: { '*': ['DeterminismViolationError'] },
  });
  return worker.runUntil(body(new Client({ connection, namespace }), taskQueue));
}

/** Starts the user's workflow that runs the agent named `agent` on a ticket. */
function startTicketByName(client: Client, taskQueue: string, agent: string): Promise<WorkflowHandle<typeof answerTicketByName>> {
  const workflowId = `named-ticket-${randomUUID().slice(0, 8)}`;
  return client.workflow.start<typeof answerTicketByName>('answerTicketByName', { taskQueue, workflowId, args: ['Where is order 7?', agent] });
}

/** The workflow id of the first child `handle`'s workflow started. */
async function firstChildId(handle: WorkflowHandle): Promise<string> {
  const history = await handle.fetchHistory();
  return history.events!.find((event) => event.startChildWorkflowExecutionInitiatedEventAttributes)!
    .startChildWorkflowExecutionInitiatedEventAttributes!.workflowId!;
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
      const childId = await firstChildId(handle);
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

  it('runs an agent the workers define by name: the child resolves it, records its version and shows it in AgentVersion', async () => {
    const { answer, childId, status, attributes } = await withWorker(
      target.namespace,
      async (client, taskQueue) => {
        const handle = await startTicketByName(client, taskQueue, 'support@r1');
        const output = await handle.result();
        const childId = await firstChildId(handle);
        const child = new RunHandle(client, client.workflow.getHandle(childId), null);
        // The child writes its version once resolved; visibility may show it a moment later.
        const described = await eventually(async () => {
          const description = await client.workflow.getHandle(childId).describe();
          return description.typedSearchAttributes.get(AgentVersionAttribute) === `support@${support.version}` && description;
        });
        await recordHistory('run-agent-named', new RunHandle(client, handle, null));
        await recordHistory('run-agent-named-child', child);
        return { answer: output, childId, status: await child.status(), attributes: described.typedSearchAttributes };
      },
      [support],
    );
    expect(answer).toBe('Your order ships tomorrow.');
    expect(childId).toMatch(/\.agent-support-[0-9a-f]{8}$/);
    expect(status.agentVersion).toEqual({ name: 'support', version: support.version, label: 'r1' });
    expect(attributes.get(AgentNameAttribute)).toBe('support');
  });

  it("fails the workflow with the child's AgentNotFound when the workers do not define the named agent", async () => {
    const failure = await withWorker(
      target.namespace,
      async (client, taskQueue) => {
        const handle = await startTicketByName(client, taskQueue, 'retired');
        const error = await handle.result().catch((caught: unknown) => caught);
        await recordHistory('run-agent-named-not-found', new RunHandle(client, handle, null));
        return error;
      },
      [support],
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const child = (failure as WorkflowFailedError).cause as ChildWorkflowFailure;
    expect(child).toBeInstanceOf(ChildWorkflowFailure);
    const cause = child.cause as ApplicationFailure;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause).toMatchObject({ type: ErrorCode.agentNotFound, nonRetryable: true });
    expect(cause.message).toContain(`support@${support.version} (r1)`);
  });

  it.each([
    [{ agent: 'support', config: { name: 'support' } }, 'agent: give the agent a config or a name (agent), not both'],
    [{}, 'config: required, or name an agent the workers define (agent)'],
    [{ config: { name: 'support' }, overrides: { model: 'scripted:other' } }, 'overrides: only for a named agent (agent); change the config instead'],
    [
      { agent: 'support', agents: { billing: { name: 'billing' } } },
      "agents: a named agent's handoff targets are the workers' definitions; give no configs",
    ],
    [{ agent: 'support@' }, "agent: 'support@' is not an agent name (write name or name@version)"],
  ])('fails the workflow with AgentConfigError naming the field for %j', async (choice, problem) => {
    const failure = await withWorker(target.namespace, async (client, taskQueue) => {
      const handle = await client.workflow.start<typeof runAgentWithOptions>('runAgentWithOptions', {
        taskQueue,
        workflowId: `bad-choice-${randomUUID().slice(0, 8)}`,
        args: [{ ...choice, task: 'Hi' }],
      });
      return handle.result().catch((caught: unknown) => caught);
    });
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause).toMatchObject({ type: ErrorCode.agentConfigInvalid, nonRetryable: true });
    expect(cause.details).toEqual([{ problems: [problem] }]);
  });
});
