import { describe, expect, it } from '@jest/globals';
import type { TranscriptEntry } from '../../src/history/history-entries';
import type { AgentRunResult } from '../../src/protocol/run-types';
import { ErrorCode } from '../../src/protocol/errors';
import { transcriptEntries } from '../../src/console/pages/transcript-view';
import { runListFilterFrom, runListQuery } from '../../src/console/run-list-query';

/** What an operator reads (pure): the run list's filters as visibility queries, and how a run's end and failure are shown. */

const at = '2026-11-24T09:00:00.000Z';
const modelStep = { kind: 'model', at, step: 1, activityId: 'step-1', durationMs: 3, attempts: 1, model: 'x', conversation: null } as const;
const noOutput = { text: null, toolCalls: [], outputError: null, overBudget: null };
const completed = { output: 'Done.', stopReason: 'completed', steps: 2, toolResults: [] } as unknown as AgentRunResult;

describe('run list filters', () => {
  const filterOf = (query: Record<string, string>) => runListFilterFrom((name) => query[name]);

  it('filters closed runs by how their execution ended, open ones by what the agent does', () => {
    const types = "WorkflowType IN ('agentRun', 'agentThread')";
    const cases: Array<[string, string]> = [
      ['failed', `${types} AND ExecutionStatus = 'Failed'`],
      ['cancelled', `${types} AND ExecutionStatus = 'Canceled'`],
      ['timed-out', `${types} AND ExecutionStatus = 'TimedOut'`],
      ['completed', `${types} AND ExecutionStatus = 'Completed'`],
      ['running', `${types} AND ExecutionStatus = 'Running'`],
      ['idle', `${types} AND ExecutionStatus = 'Running' AND AgentStatus = 'idle'`],
    ];
    for (const [status, query] of cases) {
      const { filter, problems } = filterOf({ status });
      expect({ status, problems, query: runListQuery(filter) }).toEqual({ status, problems: [], query });
    }
  });

  it('reads start times as UTC and durations as people write them, and places open runs by their start', () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    const { filter, problems } = filterOf({ from: '2026-11-28T09:30', to: '2026-11-28T10:00:00+01:00', min_duration: '90s', max_duration: '2h' });
    expect(problems).toEqual([]);
    expect(runListQuery(filter, now)).toBe(
      "WorkflowType IN ('agentRun', 'agentThread') AND StartTime >= '2026-11-28T09:30:00.000Z' AND StartTime <= '2026-11-28T09:00:00.000Z'" +
        " AND (ExecutionDuration >= 90000000000 OR (ExecutionStatus = 'Running' AND StartTime <= '2026-11-28T11:58:30.000Z'))" +
        " AND (ExecutionDuration <= 7200000000000 OR (ExecutionStatus = 'Running' AND StartTime >= '2026-11-28T10:00:00.000Z'))",
    );
  });

  it('names each value it cannot read and leaves it out', () => {
    const { filter, problems } = filterOf({ status: 'broken', from: 'yesterday', min_duration: 'long' });
    expect(problems).toEqual([
      "status: 'broken' is not one of running, awaiting_approval, idle, closed, completed, failed, cancelled, terminated, timed_out",
      "from: 'yesterday' is not a time such as 2026-11-28T09:30 (UTC)",
      "min_duration: 'long' is not a duration such as 30s, 15m, 4h or 3d",
    ]);
    expect(runListQuery(filter)).toBe("WorkflowType IN ('agentRun', 'agentThread')");
  });
});

describe("a run's end on its page", () => {
  const render = async (entries: TranscriptEntry[]) => (await transcriptEntries('run-1', entries)).toString();

  it('says "completed" once, and the stop reason only when it says more', async () => {
    const done = await render([{ kind: 'finished', at, status: 'completed', result: completed, failure: null }]);
    expect(done).toContain('Finished: completed</p>');
    const stopped = await render([
      { kind: 'finished', at, status: 'completed', result: { ...completed, stopReason: 'max_steps', stopDetail: 'after 3 steps' }, failure: null },
    ]);
    expect(stopped).toContain('Finished: completed (max_steps: after 3 steps)');
  });

  it("shows a failure once, with its code and what to do, and the task's model as written", async () => {
    const failure = 'The provider refused the API key (401)';
    const html = await render([
      { kind: 'started', at, agent: 'a', model: 'openai-compatible:/srv/Models/Qwen.gguf', task: 'Hi', continued: false },
      { ...modelStep, ...noOutput, failure },
      { kind: 'finished', at, status: 'failed', result: null, failure: `Activity task failed: ${failure}`, failureType: ErrorCode.modelAuthFailed },
    ]);
    expect(html.split(failure)).toHaveLength(2);
    expect(html).toContain('<code class="error-code">ModelAuthFailed</code>');
    expect(html).toContain('Check the key in the workers&#39; environment');
    expect(html).toContain('Step 1 failed: it ended the run');
    expect(html).toContain('<span class="model small muted">openai-compatible:/srv/Models/Qwen.gguf</span>');
  });
});
