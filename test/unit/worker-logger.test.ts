import { Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { pino } from 'pino';
import { PinoTemporalLogger } from '../../src/worker/logger';

/** The worker's log lines (pino JSON through Temporal's Runtime logger), read back as JSON. */
function capturedLogger(): { logger: PinoTemporalLogger; lines: () => Array<Record<string, unknown>> } {
  const written: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString());
      done();
    },
  });
  const logger = new PinoTemporalLogger(pino({ level: 'info' }, sink));
  return {
    logger,
    lines: () =>
      written
        .join('')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('the worker log', () => {
  it('shows a failed workflow\'s error with its type, message and cause instead of "error":{}', () => {
    const { logger, lines } = capturedLogger();
    const cause = ApplicationFailure.create({ type: 'ModelAuthFailed', message: 'no key', nonRetryable: true, details: ['secret payload'] });
    const error = new ActivityFailure('activity failed', 'modelStep', 'step-1.model', RetryState.NON_RETRYABLE_FAILURE, 'worker-1', cause);
    logger.warn('Workflow failed', { error, workflowId: 'failer-1' });
    const [line] = lines();
    expect(line).toMatchObject({
      msg: 'Workflow failed',
      workflowId: 'failer-1',
      error: {
        name: 'ActivityFailure',
        message: 'activity failed',
        cause: { name: 'ApplicationFailure', message: 'no key', type: 'ModelAuthFailed', nonRetryable: true },
      },
    });
    expect(JSON.stringify(line)).not.toContain('secret payload');
  });

  it('names the class of an error that crossed from the workflow thread as a plain Error', () => {
    const { logger, lines } = capturedLogger();
    const cloned = structuredClone(ApplicationFailure.nonRetryable('no key', 'ModelAuthFailed'));
    logger.warn('Workflow failed', { error: cloned });
    expect(lines()[0]).toMatchObject({ error: { name: 'ApplicationFailure', message: 'no key' } });
  });

  it('leaves metadata without errors as it is', () => {
    const { logger, lines } = capturedLogger();
    logger.info('Worker polling', { taskQueue: 'agent-runs', count: 2 });
    expect(lines()[0]).toMatchObject({ msg: 'Worker polling', taskQueue: 'agent-runs', count: 2 });
  });
});
