import { describe, expect, it } from '@jest/globals';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { AgentNotFoundError, AgentOverrideError } from '../../src/protocol/agent-errors';
import { ApprovalRefusedError } from '../../src/protocol/approval-errors';
import {
  AgentConfigError,
  AgentRuntimeError,
  EmptyMessageError,
  ErrorCode,
  InvalidMessageError,
  PayloadTooLargeError,
  SearchAttributesMissingError,
  ThreadError,
} from '../../src/protocol/errors';
import { TemporalUnreachableError } from '../../src/connection/temporal-unreachable';
import { checkedBody, readJsonBody } from '../../src/gateway/gateway-body';
import { errorReplyOf, GatewayError, GatewayErrorCode, HTTP_STATUS_BY_CODE } from '../../src/gateway/gateway-errors';
import { decisionBody } from '../../src/gateway/gateway-schemas';

/** The gateway's one table from error codes to HTTP statuses, the body every error answers with, and the body reader's limits. */

describe('the error map', () => {
  it.each([
    [new AgentConfigError('bad config', ['temperature: must be at most 2']), 400, ErrorCode.agentConfigInvalid],
    [new AgentOverrideError('support', ['temperature: not overridable']), 400, ErrorCode.agentOverrideRefused],
    [new EmptyMessageError('thread'), 400, ErrorCode.emptyMessage],
    [new InvalidMessageError('text: over 100,000 characters'), 400, ErrorCode.invalidMessage],
    [new AgentRuntimeError(ErrorCode.runNotFound, 'no run x'), 404, ErrorCode.runNotFound],
    [new ThreadError(ErrorCode.threadNotFound, 't-1', 'no thread t-1'), 404, ErrorCode.threadNotFound],
    [new AgentNotFoundError('suport', ['support@abc']), 404, ErrorCode.agentNotFound],
    [new ThreadError(ErrorCode.threadBusy, 't-1', 'busy'), 409, ErrorCode.threadBusy],
    [new ThreadError(ErrorCode.threadClosed, 't-1', 'closed'), 409, ErrorCode.threadClosed],
    [new ThreadError(ErrorCode.threadConfigMismatch, 't-1', 'another config'), 409, ErrorCode.threadConfigMismatch],
    [new ApprovalRefusedError('decided already'), 409, ErrorCode.approvalRefused],
    [new PayloadTooLargeError('task', 1_000_000, 'task: too large'), 413, ErrorCode.payloadTooLarge],
    [new AgentRuntimeError(ErrorCode.workersUnavailable, 'no worker answered'), 503, ErrorCode.workersUnavailable],
    [new SearchAttributesMissingError('default', 'AgentName'), 503, ErrorCode.searchAttributesMissing],
    [new TemporalUnreachableError('No server', '127.0.0.1:7233', 'refused', 'ECONNREFUSED'), 503, 'TemporalUnreachable'],
  ])('answers %p with %i and its code', (error, status, code) => {
    const reply = errorReplyOf(error);
    expect(reply.status).toBe(status);
    expect(reply.body.error.code).toBe(code);
    expect(reply.body.error.message).toBe((error as Error).message);
    expect(reply.internal).toBe(false);
  });

  it('carries what the typed errors know: the field and limit, the problems, the agents offered', () => {
    expect(errorReplyOf(new PayloadTooLargeError('task', 1_000_000, 'task: too large')).body.error).toMatchObject({
      field: 'task',
      limitBytes: 1_000_000,
    });
    expect(errorReplyOf(new AgentConfigError('bad', ['temperature: must be at most 2'])).body.error).toMatchObject({
      field: 'temperature',
      problems: ['temperature: must be at most 2'],
    });
    expect(errorReplyOf(new AgentNotFoundError('suport', ['support@abc'])).body.error).toMatchObject({ field: 'agent', offered: ['support@abc'] });
  });

  it("maps Temporal's not-found and already-started errors, and a busy server", () => {
    expect(errorReplyOf(new WorkflowNotFoundError('not found', 'run-1', undefined))).toMatchObject({
      status: 404,
      body: { error: { code: 'RunNotFound' } },
    });
    const started = errorReplyOf(new WorkflowExecutionAlreadyStartedError('started', 'run-1', 'agentRun'));
    expect(started).toMatchObject({ status: 409, body: { error: { code: GatewayErrorCode.runAlreadyStarted, field: 'workflowId' } } });
    const busy = Object.assign(new Error('Workflow is busy'), { code: 8 });
    expect(errorReplyOf(busy)).toMatchObject({ status: 503, body: { error: { code: GatewayErrorCode.temporalUnavailable } } });
  });

  it('answers 500 for anything else without its message, and marks it for the log', () => {
    const reply = errorReplyOf(new TypeError('cannot read x of undefined'));
    expect(reply).toMatchObject({ status: 500, internal: true, body: { error: { code: GatewayErrorCode.internal } } });
    expect(reply.body.error.message).not.toContain('undefined');
  });

  it("answers the gateway's own errors with their status and details", () => {
    const error = new GatewayError(409, GatewayErrorCode.alreadyDecided, 'Already approved by alice', { decidedBy: 'alice', outcome: 'approved' });
    expect(errorReplyOf(error)).toEqual({
      status: 409,
      internal: false,
      body: { error: { code: 'AlreadyDecided', message: 'Already approved by alice', decidedBy: 'alice', outcome: 'approved' } },
    });
  });

  it("lists every code of the gateway's own in the table", () => {
    for (const code of Object.values(GatewayErrorCode)) expect(HTTP_STATUS_BY_CODE[code]).toBeGreaterThanOrEqual(400);
  });
});

describe('reading a body', () => {
  const request = (body: string, headers: Record<string, string> = {}) =>
    new Request('http://gateway.test/v1/runs', { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

  it('parses JSON, and reads an empty body as {}', async () => {
    await expect(readJsonBody(request('{"task":"hi"}'), 1_000)).resolves.toEqual({ task: 'hi' });
    await expect(readJsonBody(request(''), 1_000)).resolves.toEqual({});
  });

  it('refuses malformed JSON with InvalidJson', async () => {
    await expect(readJsonBody(request('{"task": '), 1_000)).rejects.toMatchObject({ status: 400, code: 'InvalidJson', details: { field: 'body' } });
  });

  it('refuses a body over the limit, by its Content-Length before reading and by its bytes while reading', async () => {
    const declared = request('{}', { 'content-length': '5000' });
    await expect(readJsonBody(declared, 1_000)).rejects.toMatchObject({ status: 413, code: 'PayloadTooLarge', details: { limitBytes: 1_000 } });
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let chunk = 0; chunk < 4; chunk++) controller.enqueue(new TextEncoder().encode('x'.repeat(400)));
        controller.close();
      },
    });
    const streamed = new Request('http://gateway.test/v1/runs', { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    await expect(readJsonBody(streamed, 1_000)).rejects.toMatchObject({ status: 413, details: { field: 'body', limitBytes: 1_000 } });
  });

  it('names the first field a schema refuses, an unknown key included', () => {
    expect(() => checkedBody(decisionBody, { decision: 'maybe' })).toThrow(expect.objectContaining({ status: 400, details: { field: 'decision' } }));
    expect(() => checkedBody(decisionBody, { decision: 'approve', note: 'x' })).toThrow(expect.objectContaining({ details: { field: 'note' } }));
  });
});
