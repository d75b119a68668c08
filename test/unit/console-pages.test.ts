import { describe, expect, it } from '@jest/globals';
import type { TranscriptEntry } from '../../src/history/history-entries';
import { transcriptEntries } from '../../src/console/pages/transcript-view';
import { runsContent } from '../../src/console/pages/runs-page';

/** The run page's transcript rendering (pure): markers and links for what is not a message, and nothing an agent writes becomes markup. */

const at = '2026-11-24T09:00:00.000Z';

async function render(entries: TranscriptEntry[]): Promise<string> {
  return (await transcriptEntries('origin-run', entries)).toString();
}

describe('console transcript view', () => {
  it('marks continue-as-new, handoffs, forks and compaction, and links sub-agents to their runs', async () => {
    const html = await render([
      {
        kind: 'started',
        at,
        agent: 'triage',
        model: 'scripted:x',
        task: 'Help me',
        continued: false,
        forkOf: { workflowId: 'first-run', runId: 'r1', step: 2 },
      },
      {
        kind: 'compaction',
        at,
        step: 3,
        activityId: 'compact-3',
        durationMs: 5,
        attempts: 1,
        model: 'scripted:x',
        summarisedMessages: 12,
        summary: 'They asked for help.',
        failure: null,
      },
      { kind: 'started', at, agent: 'triage', model: 'scripted:x', task: 'Help me', continued: true },
      { kind: 'started', at, agent: 'billing', model: 'scripted:x', task: 'Help me', continued: true, handoffFrom: 'triage' },
      {
        kind: 'child',
        at,
        workflowId: 'origin-run-sub-1',
        runId: null,
        agent: 'researcher',
        task: 'Find the invoice',
        status: 'completed',
        durationMs: 10,
        result: null,
        failure: null,
      },
    ]);
    expect(html).toContain('Fork of <a href="/runs/first-run">first-run</a> after step 2');
    expect(html).toContain('Compaction: 12 earlier messages summarised');
    expect(html).toContain('Continued as new');
    expect(html).toContain('Handed off from triage to billing');
    expect(html).toContain('<a href="/runs/origin-run-sub-1">origin-run-sub-1</a>');
    expect(html.match(/Task for/g)).toHaveLength(1);
  });

  it('escapes what agents, tools and people wrote', async () => {
    const html = await render([
      { kind: 'started', at, agent: 'a', model: 'scripted:x', task: '<img src=x onerror=alert(1)>', continued: false },
      {
        kind: 'model',
        at,
        step: 1,
        activityId: 'step-1',
        durationMs: 1,
        attempts: 1,
        model: 'scripted:x',
        conversation: null,
        text: '<script>alert(2)</script>',
        toolCalls: [],
        outputError: null,
        overBudget: null,
        failure: null,
      },
      {
        kind: 'update',
        at,
        name: 'decideApproval',
        payload: { approvalId: 'step-1.call-1', decision: 'reject', decidedBy: '"><b>eve</b>', reason: '<i>no</i>' },
      },
    ]);
    expect(html).not.toMatch(/<script>|<img|<b>|<i>/);
    expect(html).toContain('&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(html).toContain('Rejected step-1.call-1 by &quot;&gt;&lt;b&gt;eve&lt;/b&gt;: &lt;i&gt;no&lt;/i&gt;');
  });
});

describe('console run list', () => {
  it("links a fork to its origin and an evaluation run to its evaluation's runs", async () => {
    const listed = {
      runId: 'r',
      kind: 'run' as const,
      agent: 'support',
      agentVersion: null,
      status: 'completed',
      open: false,
      startTime: new Date(at),
      closeTime: new Date(Date.parse(at) + 90_000),
      parent: null,
      costUsd: 0.0123,
      resourceId: null,
    };
    const html = (
      await runsContent(
        [
          { ...listed, workflowId: 'fork-1', forkOf: 'origin-1', evaluation: null },
          { ...listed, workflowId: 'eval-run-1', forkOf: 'origin-1', evaluation: 'eval-20261124 & co' },
        ],
        { evaluation: 'eval-20261124 & co' },
      )
    ).toString();
    expect(html).toContain('fork of <a href="/runs/origin-1">origin-1</a>');
    expect(html).toContain('evaluation <a href="/runs?evaluation=eval-20261124%20%26%20co">eval-20261124 &amp; co</a>');
    expect(html).toContain('Runs and threads of evaluation eval-20261124 &amp; co');
    expect(html).toContain('<input type="hidden" name="evaluation" value="eval-20261124 &amp; co">');
  });
});
