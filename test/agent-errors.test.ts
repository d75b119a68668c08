import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { parseAgentConfig } from '../src/config/agent-config';
import { loadAgentDirectory } from '../src/config/load-config';
import { defaultModelRegistry } from '../src/worker/default-models';
import { AgentConfigError, ErrorCode } from '../src/protocol/errors';
import { defineTool } from '../src/tools/define-tool';
import { ToolRegistry } from '../src/tools/tool-registry';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * The seeds' error cases of an agent (duplicate tools, duplicate handoffs, no provider, retries
 * exhausted, context length exceeded), each a typed error with a stable code (docs/errors.md):
 * the config cases without a server, the run and thread cases on a real dev server and worker.
 */

function configProblems(input: Record<string, unknown>): string[] {
  try {
    parseAgentConfig(input);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(AgentConfigError);
    expect((error as AgentConfigError).code).toBe(ErrorCode.agentConfigInvalid);
    return (error as AgentConfigError).problems;
  }
}

describe('duplicate tools', () => {
  it('refuses a config that names a tool twice, or a tool named as one of its handoffs', () => {
    expect(configProblems({ name: 'bot', tools: ['greet', 'greet'] })).toEqual(["tools: Duplicate tool name 'greet' on agent 'bot'"]);
    expect(configProblems({ name: 'bot', tools: ['transfer_to_writer'], handoffs: ['writer'] })).toEqual([
      "tools: Duplicate tool name 'transfer_to_writer' on agent 'bot': the handoff to 'writer' is a tool of that name",
    ]);
  });

  it('refuses a second tool of the same name in a worker registry (DuplicateToolError)', () => {
    const greet = defineTool({ name: 'greet', description: 'Says hello.', parameters: z.object({}), execute: () => 'hello' });
    expect(() => new ToolRegistry([greet, greet])).toThrow(
      expect.objectContaining({ code: ErrorCode.duplicateTool, message: "Duplicate tool name 'greet' in the worker's tool registry" }),
    );
  });
});

describe('duplicate handoffs', () => {
  it('refuses a handoff named twice, and two handoffs that would become the same transfer tool', () => {
    expect(configProblems({ name: 'bot', handoffs: ['writer', 'writer'] })).toEqual(["handoffs: Duplicate handoff name 'writer' on agent 'bot'"]);
    expect(configProblems({ name: 'bot', handoffs: ['team.writer', 'team_writer'] })).toEqual([
      "handoffs: Duplicate handoff target: 'team.writer' and 'team_writer' both become the tool 'transfer_to_team_writer' on agent 'bot'",
    ]);
  });

  it('refuses a folder of agents where two files define the same agent name, naming both files', () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'agents-'));
    try {
      writeFileSync(path.join(folder, 'a.yaml'), 'name: writer\nmodel: scripted:demo\n');
      writeFileSync(path.join(folder, 'b.yaml'), 'name: writer\nmodel: scripted:other\n');
      expect(() => loadAgentDirectory(folder)).toThrow(AgentConfigError);
      expect(() => loadAgentDirectory(folder)).toThrow(
        `name: Duplicate agent name 'writer' in ${path.join(folder, 'a.yaml')} and ${path.join(folder, 'b.yaml')}`,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('no provider for the model string', () => {
  it('is ModelNotFoundError naming the prefix and the providers the worker has', () => {
    expect(() => defaultModelRegistry().resolve('nosuch:model-1')).toThrow(
      expect.objectContaining({
        code: ErrorCode.modelNotFound,
        message: expect.stringMatching(/^No model provider 'nosuch' for model 'nosuch:model-1' \(this worker has: .*scripted.*\)$/),
      }),
    );
  });
});

describe('agent errors on a real worker', () => {
  const testTools = createTestTools();
  let env: TestEnvironment;
  const scripts = {
    serverDown: { replies: [{ error: { code: 'ModelServerError' as const, message: '503 upstream unavailable' } }] },
    // A thread: turn 1 fails its model step for good, turn 2 answers.
    threadServerDown: {
      replies: [{ error: { code: 'ModelServerError' as const, message: '503 upstream unavailable' } }, { text: 'Back: {{user}}' }],
    },
    threadTooLong: {
      replies: [
        { error: { code: 'ContextLengthExceeded' as const, message: 'prompt is too long: 210000 tokens > 200000' } },
        { text: 'Short again: {{user}}' },
      ],
    },
  };

  beforeAll(async () => {
    env = await createTestEnvironment({ tools: testTools.tools, scripts });
  });

  afterAll(async () => {
    await env?.close();
  });

  /** The failure a run ended with: its cause, an ApplicationFailure with the stable type. */
  async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
    const error = await promise.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    return cause as ApplicationFailure;
  }

  it('fails a run whose model has no provider with ModelNotFoundError, without retrying', async () => {
    const run = await env.agents.startRun({ config: { name: 'lost', model: 'nosuch:model-1' }, task: 'Hello' });
    const failure = await failureOf(run.result());
    expect(failure.type).toBe(ErrorCode.modelNotFound);
    expect(failure.message).toMatch(/No model provider 'nosuch' for model 'nosuch:model-1'/);
    const history = await run.workflow.fetchHistory();
    expect(
      history.events?.filter((event) => event.activityTaskStartedEventAttributes).map((event) => event.activityTaskStartedEventAttributes?.attempt),
    ).toEqual([1]);
  });

  it('fails a run whose model step used up max_retries with ModelRetriesExhausted, the last failure as its cause', async () => {
    const run = await env.agents.startRun({ config: { name: 'unlucky', model: 'scripted:serverDown', max_retries: 2 }, task: 'Hello' });
    const failure = await failureOf(run.result());
    await recordHistory('model-retries-exhausted', run);
    expect(failure.type).toBe(ErrorCode.modelRetriesExhausted);
    expect(failure.message).toBe('Model step step-1.model (scripted:serverDown) failed after 2 attempts (max_retries: 2): 503 upstream unavailable');
    expect(failure.details).toEqual([{ attempts: 2, maxRetries: 2, lastFailureType: ErrorCode.modelServerError }]);
    expect(failure.cause).toBeInstanceOf(ActivityFailure);
    expect(failure.cause?.cause).toMatchObject({ type: ErrorCode.modelServerError });
    const events: string[] = [];
    for await (const event of run.events()) events.push(event.type === 'run-failed' ? `run-failed ${event.failureType}` : event.type);
    expect(events).toContain(`run-failed ${ErrorCode.modelRetriesExhausted}`);
  });

  it('ends a thread turn whose retries ran out as failed with ModelRetriesExhausted; the thread answers the next message', async () => {
    const thread = env.agents.thread(`thread-errors-${randomUUID().slice(0, 8)}`, {
      config: { name: 'assistant', model: 'scripted:threadServerDown', max_retries: 2 },
    });
    const first = await (await thread.send('hello?')).result();
    expect(first).toMatchObject({ turn: 1, stopReason: 'failed', failure: { type: ErrorCode.modelRetriesExhausted } });
    const second = await (await thread.send('still there?')).result();
    expect(second).toMatchObject({ turn: 2, stopReason: 'completed', output: 'Back: still there?' });
    await thread.close();
  });

  it('ends a thread turn whose prompt no longer fits with context_length_exceeded; the thread answers the next message', async () => {
    const thread = env.agents.thread(`thread-errors-${randomUUID().slice(0, 8)}`, { config: { name: 'assistant', model: 'scripted:threadTooLong' } });
    const first = await (await thread.send('a very long message')).result();
    expect(first).toMatchObject({ turn: 1, stopReason: 'context_length_exceeded', stopDetail: expect.stringContaining('prompt is too long') });
    const second = await (await thread.send('short')).result();
    expect(second).toMatchObject({ turn: 2, stopReason: 'completed', output: 'Short again: short' });
    await thread.close();
  });
});
