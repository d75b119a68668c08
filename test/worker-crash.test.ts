import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { stringify as stringifyYaml } from 'yaml';
import { eventually } from './support/test-env';
import { loggedExecutions as executions } from './support/worker-process';
import { workerProcessFixture } from './support/worker-process-fixture';

const fixture = workerProcessFixture('crash');

describe('a worker killed mid-run', () => {
  it('is replaced by a new worker that finishes the run without re-running completed tools', async () => {
    const logFile = path.join(fixture.folder, 'executions.log');
    const release = path.join(fixture.folder, 'release');
    const script = path.join(fixture.folder, 'model.yaml');
    writeFileSync(
      script,
      stringifyYaml({
        replies: [
          {
            toolCalls: [
              { name: 'record', args: { label: 'A' } },
              { name: 'record', args: { label: 'B' } },
            ],
          },
          { toolCalls: [{ name: 'wait_for_release', args: { label: 'C', release } }] },
          { text: 'All done: {{tool:wait_for_release}}' },
        ],
      }),
    );
    const environment = { CRASH_LOG: logFile };
    const first = await fixture.startWorker(environment);
    const run = await fixture.agents.startRun({
      config: { name: 'crash', model: `scripted:${script}`, tools: ['record', 'wait_for_release'] },
      task: 'Survive',
      timeouts: { heartbeatMs: 2_000 },
    });
    await eventually(() => executions(logFile).includes('start C'), 60_000);
    await first.kill('SIGKILL');

    writeFileSync(release, 'go');
    await fixture.startWorker(environment);
    const result = await run.result();

    expect(result.output).toBe('All done: released C');
    const lines = executions(logFile);
    expect(lines.filter((line) => line === 'done A')).toHaveLength(1);
    expect(lines.filter((line) => line === 'done B')).toHaveLength(1);
    // C was in flight when the worker died: it ran again on the new worker and completed once.
    expect(lines.filter((line) => line === 'start C')).toHaveLength(2);
    expect(lines.filter((line) => line === 'done C')).toHaveLength(1);
    const history = await run.workflow.fetchHistory();
    const toolC = (history.events ?? []).find((event) => event.activityTaskScheduledEventAttributes?.activityId === 'step-2.tool-1.wait_for_release');
    const startedC = (history.events ?? []).find(
      (event) => event.activityTaskStartedEventAttributes?.scheduledEventId?.toString() === toolC?.eventId?.toString(),
    );
    expect(startedC?.activityTaskStartedEventAttributes?.attempt).toBe(2);
  });

  it('keeps a run waiting for approval while no worker runs; the decision sent then is applied by a new worker', async () => {
    const logFile = path.join(fixture.folder, 'approval.log');
    const script = path.join(fixture.folder, 'approval-model.yaml');
    writeFileSync(
      script,
      stringifyYaml({ replies: [{ toolCalls: [{ name: 'record', args: { label: 'deploy' } }] }, { text: 'Shipped: {{tool:record}}' }] }),
    );
    const environment = { CRASH_LOG: logFile };
    const first = await fixture.startWorker(environment);
    const run = await fixture.agents.startRun({
      config: { name: 'gated', model: `scripted:${script}`, tools: ['record'], hitl_tools: ['record'], hitl_timeout: '3d' },
      task: 'Deploy',
    });
    await eventually(async () => ((await run.status()).pendingApprovals.length === 1 ? true : undefined), 30_000);
    await first.kill('SIGKILL');

    const receipt = await run.approve('step-1.call-1', { decidedBy: 'alice', waitMs: 2_000 });
    expect(receipt).toEqual({ delivery: 'signal', approvalId: 'step-1.call-1', outcome: null });
    expect(executions(logFile)).toEqual([]);

    await fixture.startWorker(environment);
    const result = await run.result();
    expect(result.output).toBe('Shipped: recorded deploy');
    expect(result.toolResults[0]?.metadata).toMatchObject({ approval_status: 'approved', approval_id: 'step-1.call-1' });
    expect(executions(logFile)).toEqual(['done deploy']);
  });
});
