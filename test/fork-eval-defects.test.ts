// The fork and eval defects issue 30 found when tried as a new user would, each reproduced on a real dev server.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { evaluateRuns, type EvaluationReport } from '../src/client/evaluation/evaluate';
import { renderEvaluation } from '../src/client/evaluation/report';
import { AgentRuntimeError, ErrorCode } from '../src/protocol/errors';
import { WireName } from '../src/protocol/wire-names';
// @temporalio/client's own gRPC library (its Connection takes these interceptors).
import * as grpc from '@grpc/grpc-js';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { AgentClient } from '../src/client/agent-client';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import { runCli } from './support/cli-process';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const testTools = createTestTools();
let env: TestEnvironment;
let folder: string;
const suffix = Date.now().toString(36);
const triage = { name: `triage-${suffix}`, model: 'scripted:triage', tools: ['echo'], handoffs: [`billing-${suffix}`] };
const billing = { name: `billing-${suffix}`, model: 'scripted:billing', tools: ['add'] };
const origin = { name: `origin-${suffix}`, model: 'scripted:origin', tools: ['add', 'echo'] };

beforeAll(async () => {
  folder = mkdtempSync(`${process.env.AGENT_TEST_SCRATCH ?? '/tmp'}/fork-eval-defects-`);
  env = await createTestEnvironment({
    tools: testTools.tools,
    scripts: {
      origin: {
        replies: [
          { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] },
          { toolCalls: [{ name: 'echo', args: { text: 'hello' } }] },
          { text: 'origin answer: {{tool:add}}' },
        ],
      },
      diverging: {
        replies: [
          { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] },
          { toolCalls: [{ name: 'echo', args: { text: 'bye' } }] },
          { text: 'origin answer: {{tool:add}}' },
        ],
      },
      triage: {
        replies: [
          { toolCalls: [{ name: 'echo', args: { text: 'routing' } }] },
          { toolCalls: [{ name: `transfer_to_billing-${suffix}`, args: {} }] },
          { text: 'unused' },
          { text: 'unused' },
        ],
      },
      // The recorded triage of an older config: it routes, then answers itself (no handoff).
      routed: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'routing' } }] }, { text: 'Routed.' }] },
      billing: {
        replies: [
          { text: 'unused' },
          { text: 'unused' },
          { toolCalls: [{ name: 'add', args: { a: 40, b: 2 } }] },
          { text: 'Refunded {{tool:add}} euros.' },
        ],
      },
    },
  });
});

afterAll(async () => {
  await env?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

async function originRun(): Promise<string> {
  const run = await env.agents.startRun({ config: origin, task: 'Add and echo' });
  expect((await run.result()).output).toBe('origin answer: 3');
  return run.workflowId;
}

async function handedOffRun(): Promise<string> {
  const run = await env.agents.startRun({ config: triage, task: 'Refund me', agents: { [billing.name]: billing } });
  expect((await run.result()).output).toBe('Refunded 42 euros.');
  return run.workflowId;
}

async function refusal(promise: Promise<unknown>): Promise<AgentRuntimeError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AgentRuntimeError);
  return error as AgentRuntimeError;
}

describe('fork, as a new user tries it', () => {
  it('resolves `--model scripted:<relative file>` against the folder the command runs in', async () => {
    const id = await originRun();
    writeFileSync(
      path.join(folder, 'after-step-2.yaml'),
      'replies:\n  - text: unused\n  - text: unused\n  - text: "relative script answered {{tool:echo}}"\n',
    );
    const cli = await runCli(
      ['fork', id, '--from-step', '2', '--model', 'scripted:after-step-2.yaml', '--follow', '--json', '--task-queue', env.taskQueue],
      {},
      folder,
    );
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout.trim().split('\n').at(-1)!)).toMatchObject({ forkOf: id, result: { output: 'relative script answered hello' } });
  });

  it('refuses a fork from the final answer without a message, and a planner call as the step, with exit code 2', async () => {
    const id = await originRun();
    const finished = await refusal(env.agents.fork(id, { fromStep: 3 }));
    expect(finished.code).toBe(ErrorCode.forkRefused);
    expect(finished.message).toContain('step 3 of run');
    expect(finished.message).toContain('final answer');
    expect(finished.message).toContain('--task');
    const cli = await runCli(['fork', id, '--from-step', '3', '--task-queue', env.taskQueue]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('final answer');
    const planner = await runCli(['fork', id, '--from-step', 'plan 1', '--task-queue', env.taskQueue]);
    expect(planner.code).toBe(2);
    expect(planner.stderr).toContain("'plan 1' is a call of the planner");
    expect(planner.stderr).toContain('fork from step 1');
    expect(planner.stderr).not.toContain('NaN');
    const words = await runCli(['fork', id, '--from-step', 'last', '--task-queue', env.taskQueue]);
    expect(words.code).toBe(2);
    expect(words.stderr).toContain("got 'last'");
    expect(await env.client.workflow.count(`AgentForkOf = '${id}'`).then((count) => count.count)).toBe(0);
  });

  it('lists the forks of a run in its history', async () => {
    const id = await originRun();
    const fork = await env.agents.fork(id, { fromStep: 2, model: 'scripted:diverging' });
    await fork.result();
    const forks = await eventually(async () => {
      const listed = await runCli(['history', id, '--json']);
      const parsed = JSON.parse(listed.stdout) as { forks?: Array<{ workflowId: string; step: number | null }> };
      return (parsed.forks?.length ?? 0) > 0 ? parsed.forks : undefined;
    }, 30_000);
    expect(forks).toEqual([expect.objectContaining({ workflowId: fork.workflowId, step: 2 })]);
    const text = await runCli(['history', id]);
    expect(text.stdout).toContain(`Forks of ${id}:`);
    expect(text.stdout).toContain(`${fork.workflowId} (after step 2`);
  });

  it('leaves no worker-tools probe workflow behind after a fork or an evaluation', async () => {
    const id = await originRun();
    // The same calls through a client whose gRPC calls are recorded: every probe it starts, it
    // deletes. (Temporal deletes a closed execution asynchronously, 30 s or more on the dev server,
    // so the deletion itself is not waited for here.)
    const sent: Array<{ method: string; request: Uint8Array }> = [];
    const recording: grpc.Interceptor = (options, nextCall) =>
      new grpc.InterceptingCall(nextCall(options), {
        // The client hands gRPC each request already encoded.
        sendMessage: (request: Uint8Array, next: (request: Uint8Array) => void) => {
          sent.push({ method: String(options.method_definition.path), request });
          next(request);
        },
      });
    const target = resolveTemporalTarget();
    const connection = await Connection.connect({ ...target.connectionOptions, interceptors: [recording] });
    try {
      const agents = new AgentClient(new Client({ connection, namespace: target.namespace }), { taskQueue: env.taskQueue });
      await (await agents.fork(id, { fromStep: 1, model: 'scripted:origin' })).result();
      await evaluateRuns(agents, { runs: [id], config: origin });
    } finally {
      await connection.close();
    }
    const { StartWorkflowExecutionRequest, DeleteWorkflowExecutionRequest } = temporal.api.workflowservice.v1;
    const started = sent
      .filter(({ method }) => method.endsWith('/StartWorkflowExecution'))
      .map(({ request }) => StartWorkflowExecutionRequest.decode(request))
      .filter((request) => request.workflowType?.name === WireName.workerToolsWorkflow)
      .map((request) => request.workflowId);
    const deleted = sent
      .filter(({ method }) => method.endsWith('/DeleteWorkflowExecution'))
      .map(({ request }) => DeleteWorkflowExecutionRequest.decode(request).workflowExecution?.workflowId);
    expect(started.length).toBeGreaterThan(0);
    expect(deleted).toEqual(expect.arrayContaining(started));
  });
});

describe('eval, as a new user tries it', () => {
  it('answers a handoff call from the workflow, not as "not recorded", and finds handed-off runs by their first agent', async () => {
    const id = await handedOffRun();
    const report = await evaluateRuns(env.agents, { runs: [id], config: triage, agents: { [billing.name]: billing } });
    expect(report.runs[0]).toMatchObject({
      diverged: false,
      unmatchedToolCalls: [],
      firstDivergentStep: null,
      evaluation: { output: 'Refunded 42 euros.' },
    });
    const found = await eventually(async () => {
      const byQuery = await evaluateRuns(env.agents, {
        query: `AgentName = '${triage.name}'`,
        config: triage,
        agents: { [billing.name]: billing },
      }).catch(() => undefined);
      return byQuery?.runs.some((run) => run.recorded.workflowId === id) ? byQuery : undefined;
    }, 30_000);
    expect(found.runs.every((run) => !run.diverged)).toBe(true);

    // A recording that did not hand off: the new config's handoff diverges, but the workflow
    // answered it (no recording was looked up), so only billing's add is "not recorded".
    const older = await env.agents.startRun({ config: { ...triage, model: 'scripted:routed', handoffs: [] }, task: 'Refund me' });
    expect((await older.result()).output).toBe('Routed.');
    const departed = await evaluateRuns(env.agents, { runs: [older.workflowId], config: triage, agents: { [billing.name]: billing } });
    expect(departed.runs[0]).toMatchObject({ diverged: true, firstDivergentStep: 2, unmatchedToolCalls: [{ step: 3, call: 'add({"a":40,"b":2})' }] });
    expect(departed.runs[0]!.divergence).toEqual({ step: 2, recorded: [], evaluation: [`transfer_to_billing-${suffix}({})`], recordedSteps: 2 });
    expect(renderEvaluation(departed)).toContain(
      `at step 2 the recording answered (no tool call); this run called transfer_to_billing-${suffix}({})`,
    );
  });

  it('refuses to evaluate an evaluation run, and exits 2 on a malformed query', async () => {
    const id = await originRun();
    const report = await evaluateRuns(env.agents, { runs: [id], config: origin });
    const evaluationRun = report.runs[0]!.evaluation.workflowId;
    const refused = await refusal(evaluateRuns(env.agents, { runs: [evaluationRun], config: origin }));
    expect(refused.code).toBe(ErrorCode.evaluationRefused);
    expect(refused.message).toContain(`is an evaluation run (of ${id}`);
    const config = path.join(folder, 'origin.yaml');
    writeFileSync(config, `name: ${origin.name}\nmodel: scripted:origin\ntools: [add, echo]\n`);
    const cli = await runCli(['eval', '--query', "AgentName = = 'x'", '--config', config, '--task-queue', env.taskQueue]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('--query');
  });

  it('shows what the recording did at the step where the new run departs from it', async () => {
    const id = await originRun();
    const report: EvaluationReport = await evaluateRuns(env.agents, { runs: [id], config: { ...origin, model: 'scripted:diverging' } });
    expect(report.runs[0]).toMatchObject({
      firstDivergentStep: 2,
      divergence: { step: 2, recorded: ['echo({"text":"hello"})'], evaluation: ['echo({"text":"bye"})'], recordedSteps: 3 },
    });
    const text = renderEvaluation(report);
    expect(text).toContain('at step 2 the recording called echo({"text":"hello"}); this run called echo({"text":"bye"})');
  });
});
