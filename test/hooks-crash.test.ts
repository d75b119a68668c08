import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { stringify as stringifyYaml } from 'yaml';
import { eventually } from './support/test-env';
import { loggedExecutions } from './support/worker-process';
import { workerProcessFixture } from './support/worker-process-fixture';

/**
 * A worker process SIGKILLed around a before-tool hook's decision (test/support/hook-crash-tools.ts):
 * once the model step that took it completed, the decision is in the history and a new worker
 * runs the call as decided without asking the hook again; a worker killed before that (inside the
 * hook) leaves no decision, and the new worker's hook decides (once more) before the call runs once.
 */

const fixture = workerProcessFixture('hooks-crash');
const HOOK_CRASH_TOOLS = 'test/support/hook-crash-tools.ts';

/** A run of one refund of 500 on its own task queue, its first worker started with `kill` set, and the log. */
async function startRefund(label: string, kill: 'KILL_IN_HOOK' | 'KILL_IN_TOOL') {
  const logFile = path.join(fixture.folder, `${label}.log`);
  const script = path.join(fixture.folder, `${label}.yaml`);
  writeFileSync(
    script,
    stringifyYaml({ replies: [{ toolCalls: [{ name: 'refund', args: { order: label, amount: 500 } }] }, { text: 'Done: {{tool:refund}}' }] }),
  );
  const environment = { CRASH_LOG: logFile, [kill]: path.join(fixture.folder, `${label}.killed`) };
  const agents = fixture.freshAgents();
  const first = await fixture.startWorker(environment, { taskQueue: agents.taskQueue, toolsModule: HOOK_CRASH_TOOLS });
  const run = await agents.startRun({
    config: { name: 'refunds', model: `scripted:${script}`, tools: ['refund'] },
    task: 'Refund it',
    timeouts: { heartbeatMs: 2_000 },
  });
  return { logFile, environment, agents, first, run, killedMarker: environment[kill] };
}

describe('a worker SIGKILLed around a before-tool decision', () => {
  it('after the decision was recorded: the new worker runs the call as decided, without asking the hook again', async () => {
    const { logFile, environment, agents, first, run, killedMarker } = await startRefund('recorded', 'KILL_IN_TOOL');
    await eventually(() => existsSync(killedMarker), 60_000);
    await first.kill('SIGKILL');
    await fixture.startWorker(environment, { taskQueue: agents.taskQueue, toolsModule: HOOK_CRASH_TOOLS });
    const result = await run.result();

    expect(result.output).toBe('Done: refunded 99 for recorded');
    const log = loggedExecutions(logFile);
    expect(log.filter((line) => line.startsWith('decided'))).toEqual([`decided recorded 99 ${first.child.pid}`]);
    // The call ran twice (the first try died in the tool), both times with the recorded arguments.
    expect(log.filter((line) => line.startsWith('start')).map((line) => line.split(' ').slice(0, 3).join(' '))).toEqual([
      'start recorded 99',
      'start recorded 99',
    ]);
    expect(log.filter((line) => line.startsWith('done'))).toEqual(['done recorded 99']);
    expect(result.toolResults[0]!.metadata.decided_by).toEqual([
      { kind: 'hook', hook: 'refund-cap', action: 'allow', reason: 'refunds are capped at 99', modified: true },
    ]);
  });

  it('inside the hook, before the decision was recorded: the new worker decides and the call runs once', async () => {
    const { logFile, environment, agents, first, run, killedMarker } = await startRefund('unrecorded', 'KILL_IN_HOOK');
    await eventually(() => existsSync(killedMarker), 60_000);
    await first.kill('SIGKILL');
    const second = await fixture.startWorker(environment, { taskQueue: agents.taskQueue, toolsModule: HOOK_CRASH_TOOLS });
    const result = await run.result();

    expect(result.output).toBe('Done: refunded 99 for unrecorded');
    const log = loggedExecutions(logFile);
    expect(log.filter((line) => line.startsWith('decided'))).toEqual([
      `decided unrecorded 99 ${first.child.pid}`,
      `decided unrecorded 99 ${second.child.pid}`,
    ]);
    expect(log.filter((line) => line.startsWith('start'))).toEqual([`start unrecorded 99 ${second.child.pid}`]);
    expect(log.filter((line) => line.startsWith('done'))).toEqual(['done unrecorded 99']);
  });
});
