// The `history` view read over the recorded histories of test/histories: each kind of run has its entries.
import { describe, expect, it } from '@jest/globals';
import { renderTranscript, transcriptFromEvents, type TranscriptEntry } from '../../src/history/history-view';
import { corpusFiles, readCorpusHistory, workflowIdOf, workflowTypeOf } from '../support/history-corpus';

/**
 * The `history` view over the histories recorded from real runs (test/histories): every kind of
 * run reads without an error, and each thing that happened has its entry.
 */
function transcriptOf(file: string): { entries: TranscriptEntry[]; text: string } {
  const history = readCorpusHistory(file);
  const entries = transcriptFromEvents(history.events ?? []);
  return { entries, text: renderTranscript({ workflowId: file, runId: 'run', entries }) };
}

function entriesOf<K extends TranscriptEntry['kind']>(entries: TranscriptEntry[], kind: K): Array<Extract<TranscriptEntry, { kind: K }>> {
  return entries.filter((entry): entry is Extract<TranscriptEntry, { kind: K }> => entry.kind === kind);
}

function signalsOf(entries: TranscriptEntry[]): Array<Extract<TranscriptEntry, { kind: 'signal' | 'update' }>> {
  return entries.filter((entry): entry is Extract<TranscriptEntry, { kind: 'signal' | 'update' }> => entry.kind === 'signal');
}

describe('history view', () => {
  it('reads every recorded history of an agent run without an error', () => {
    // Histories of other workflows (the workers' tool listing) have no transcript to speak of.
    const files = corpusFiles().filter((file) => workflowTypeOf(readCorpusHistory(file)) === 'agentRun');
    const failures: string[] = [];
    for (const file of files) {
      try {
        expect(transcriptOf(file).entries.length).toBeGreaterThan(1);
      } catch (error) {
        failures.push(`${file}: ${String(error)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('shows a compaction as its own entry, not as a model step', () => {
    const { entries, text } = transcriptOf('budget-compaction/v0.2.0.json');
    const [compaction] = entriesOf(entries, 'compaction');
    expect(compaction).toMatchObject({
      step: 4,
      activityId: 'step-4.compaction',
      summarisedMessages: 2,
      summary: 'Earlier: bulk returned 150 words.',
      failure: null,
    });
    expect(entriesOf(entries, 'model').find((entry) => entry.step === 4)?.overBudget).toEqual({ promptTokens: 600, limitTokens: 500 });
    expect(text).toContain('step 4 · compaction of 2 messages');
    expect(text).toContain('step 4 (after compaction) · model');
  });

  it('shows the budget stop after a compaction with its reason', () => {
    const { text } = transcriptOf('budget-compaction-stop/v0.2.0.json');
    expect(text).toContain('completed: budget_limit after 4 steps');
    expect(text).toContain('even after compaction');
  });

  it('shows an unknown tool answered by the workflow, with its error', () => {
    const { entries, text } = transcriptOf('bad-input/v0.2.0.json');
    const unknown = entriesOf(entries, 'tool').find((entry) => entry.tool === 'no_such_tool');
    expect(unknown).toMatchObject({ via: 'workflow', callId: 'call_1_1', result: { errorCode: 'ToolNotFoundError', isError: true } });
    expect(text).toContain('tool no_such_tool({}) · by the workflow ✗');
    expect(entriesOf(entries, 'tool').map((entry) => entry.tool)).toEqual(['add', 'explode', 'noop', 'no_such_tool']);
  });

  it('shows a rejected approval as the tool call it refused, with who and why', () => {
    const { entries, text } = transcriptOf('approval-mixed/v0.2.0.json');
    const rejected = entriesOf(entries, 'tool').find((entry) => entry.tool === 'add');
    expect(rejected).toMatchObject({ via: 'workflow', result: { metadata: { approval_status: 'rejected', approval_id: 'step-1.call-2' } } });
    expect(text).toContain('rejected by bob: not during the freeze');
    expect(text).toContain('injected {"ui_request_id":"req-7"}');
  });

  it('shows sub-agent jobs as child runs and the job tool result', () => {
    const { entries, text } = transcriptOf('subagents-single/v0.2.0.json');
    const [child] = entriesOf(entries, 'child');
    // The child's id derives from the recorded run's own (random in each recording).
    const parentId = workflowIdOf(readCorpusHistory('subagents-single/v0.2.0.json'));
    expect(child).toMatchObject({
      workflowId: `${parentId}.step-1.sub-1`,
      agent: 'boss',
      task: 'child-single',
      status: 'completed',
      result: { output: 'forty-two' },
    });
    expect(child?.runId).toBeTruthy();
    const job = entriesOf(entries, 'tool').find((entry) => entry.tool === 'spawn_self');
    expect(job?.via).toBe('workflow');
    expect(job?.result?.content).toContain('"status":"success"');
    expect(text).toContain(`sub-agent ${parentId}.step-1.sub-1`);
  });

  it('shows MCP calls with their server and progress notes, and the listed MCP tools', () => {
    const { entries, text } = transcriptOf('mcp-progress-on/v0.2.0.json');
    const [listing] = entriesOf(entries, 'mcp-tools');
    expect(listing?.tools).toContain('test__count');
    const count = entriesOf(entries, 'tool').find((entry) => entry.tool === 'test__count');
    expect(count).toMatchObject({ via: 'mcp', server: 'test' });
    expect(count?.result?.progress?.length).toBeGreaterThan(0);
    expect(text).toContain('tool test__count({"n":3}) · MCP test ✓');
    expect(text).toContain('progress 1/3: counted 1');
  });

  it('shows the structured-output correction the run asked for', () => {
    const { entries, text } = transcriptOf('structured-corrected/v0.2.0.json');
    expect(entriesOf(entries, 'model')[0]?.outputError).toContain('not JSON');
    expect(text).toContain('output rejected (output_type)');
  });

  it('shows a handoff as the new agent taking over', () => {
    const { entries, text } = transcriptOf('handoff/v0.2.0.execution-2-of-2.json');
    expect(entriesOf(entries, 'started')[0]).toMatchObject({ agent: 'billing', handoffFrom: 'triage', continued: true });
    expect(text).toContain('continued (new run): agent billing, model scripted:billing (handoff from triage)');
  });

  it('shows the skills a run loaded', () => {
    const { entries } = transcriptOf('skills-shadowed/v0.2.0.json');
    const [loaded] = entriesOf(entries, 'skills-loaded');
    expect(loaded?.sources.map((source) => source.skills)).toEqual([['greeter'], ['greeter']]);
  });

  it('says which skills batches the run applied and which it ignored (not newer, a gap, a source it does not follow)', () => {
    const history = readCorpusHistory('skills-gain-and-lose/v0.2.0.json');
    const events = history.events ?? [];
    const applied = signalsOf(transcriptFromEvents(events)).filter((entry) => entry.name === 'skillsChanged');
    expect(applied.map((entry) => [entry.applied, entry.ignored])).toEqual([
      [expect.stringMatching(/^version 1 of \//), undefined],
      [expect.stringMatching(/^version 2 of \//), undefined],
      [expect.stringMatching(/^version 3 of \//), undefined],
    ]);
    // The same batches again after the last one (a second pass of the watcher), one from another
    // starting point, and one of a source the run does not follow: none is applied.
    const signals = events.filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'skillsChanged');
    const payloadOf = (event: (typeof events)[number]) =>
      JSON.parse(Buffer.from(event.workflowExecutionSignaledEventAttributes!.input!.payloads![0]!.data!).toString('utf8')) as Record<string, unknown>;
    const resent = (event: (typeof events)[number], id: number, change: Record<string, unknown>) => {
      const payload = { ...payloadOf(event), ...change };
      const copy = JSON.parse(JSON.stringify(event)) as typeof event;
      copy.eventId = id as never;
      copy.workflowExecutionSignaledEventAttributes!.input!.payloads![0] = {
        metadata: { encoding: Buffer.from('json/plain') },
        data: Buffer.from(JSON.stringify(payload)),
      };
      return copy;
    };
    const last = signals.at(-1)!;
    const lastIndex = events.indexOf(last);
    const extra = [
      resent(last, 90_001, {}),
      resent(last, 90_002, { version: 9, previousHash: 'elsewhere' }),
      resent(last, 90_003, { source: '/not/followed', version: 10 }),
    ];
    const entries = signalsOf(transcriptFromEvents([...events.slice(0, lastIndex + 1), ...extra, ...events.slice(lastIndex + 1)])).filter(
      (entry) => entry.name === 'skillsChanged',
    );
    expect(entries.slice(3).map((entry) => [entry.applied, entry.ignored])).toEqual([
      [undefined, expect.stringMatching(/^version 3 is not newer than version 3 the run has of \//)],
      [undefined, expect.stringMatching(/^version 9 does not follow the skills the run had \(a batch was missed\): the run reloaded \//)],
      [undefined, 'the run does not follow source /not/followed'],
    ]);
    const text = renderTranscript({ workflowId: 'w', runId: 'r', entries: transcriptFromEvents(events) });
    expect(text).toContain('✓ applied by the run: version 1 of /');
  });

  it("shows an evaluation run's replayed calls as recorded results, and an unrecorded call with its error", () => {
    const { entries, text } = transcriptOf('evaluation-not-recorded/v0.2.0.json');
    const tools = entriesOf(entries, 'tool');
    expect(tools.map((tool) => [tool.step, tool.tool, tool.via])).toEqual([
      [1, 'add', 'recorded'],
      [2, 'echo', 'workflow'],
    ]);
    expect(tools[0]?.result?.content).toBe('3');
    expect(tools[1]?.result?.errorCode).toBe('ToolCallNotRecorded');
    expect(text).toContain('tool add({"b":2,"a":1}) · recorded result (not run)');
  });

  it('shows where a fork came from', () => {
    const { entries, text } = transcriptOf('fork-from-step/v0.2.0.json');
    expect(entriesOf(entries, 'started')[0]?.forkOf).toMatchObject({ step: 2 });
    expect(text).toMatch(/forked from origin-\S+ \(\S+\) after step 2/);
    expect(entriesOf(entries, 'model').map((entry) => entry.step)).toEqual([3]);
  });

  it('says which signals the run ignored and why: an unknown or already decided approval, an invalid payload', () => {
    const { entries, text } = transcriptOf('approval-ignored/v0.2.0.json');
    expect(signalsOf(entries).map((entry) => entry.ignored ?? null)).toEqual([
      "no approval 'step-9.call-9' was waiting in the run then",
      null,
      "approval 'step-1.call-1' was already rejected by carol",
    ]);
    expect(text).toContain(
      'signal approval: {"approvalId":"step-1.call-1","decision":"approve","decidedBy":"mallory"}\n              ✗ ignored by the run: approval \'step-1.call-1\' was already rejected by carol',
    );
    expect(signalsOf(transcriptOf('approval-late-decision/v0.2.0.json').entries)[0]?.ignored).toBe("approval 'step-1.call-1' was already timed out");
    expect(signalsOf(transcriptOf('signals-validated/v0.2.0.json').entries).map((entry) => entry.ignored)).toEqual([
      'text: must be a string, not 5',
      'version: must be a positive integer, not "two"',
    ]);
    // Valid signals that applied carry no verdict.
    expect(signalsOf(transcriptOf('message-injection/v0.2.0.json').entries).every((entry) => entry.ignored === undefined)).toBe(true);
  });

  it('never stamps a call the workflow answered before the update that decided it', () => {
    const { entries } = transcriptOf('approval-mixed/v0.2.0.json');
    const rejection = entries.findIndex((entry) => entry.kind === 'tool' && entry.tool === 'add');
    const update = entries.findIndex((entry) => entry.kind === 'update' && (entry.payload as { decision?: string }).decision === 'reject');
    expect(update).toBeLessThan(rejection);
    expect(Date.parse(entries[rejection]!.at)).toBeGreaterThanOrEqual(Date.parse(entries[update]!.at));
    const times = entries.map((entry) => Date.parse(entry.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('names who decided a call (a tool-policy rule, a before-tool hook), also from results recorded before decided_by', () => {
    expect(transcriptOf('policy-deny/v0.2.0.json').text).toContain(
      'status denied · error ToolDenied · approval not_required · decided by tool_policies[1] (This agent never deletes accounts): deny',
    );
    const hooks = transcriptOf('hooks-tool-decisions/v0.2.0.json').text;
    expect(hooks).toContain('decided by hook refund-limit (a refund cannot be negative): deny');
    // A call the tool activity ran after an approval: its deciders come from the run's recorded result.
    expect(hooks).toContain('approval approved step-1.call-4 · decided by hook refund-limit (refunds over 100 need approval): require_approval');
    expect(transcriptOf('policy-approval/v0.2.0.json').text).toContain(
      'decided by tool_policies[0] (Refunds over 100 need a second pair of eyes): require_approval',
    );
  });

  it("names a failed run's error type", () => {
    const { entries, text } = transcriptOf('status-on-close-failed/v0.2.0.json');
    expect(entriesOf(entries, 'finished')[0]).toMatchObject({ status: 'failed', failureType: 'ModelAuthFailed' });
    expect(text).toContain('failed (ModelAuthFailed): Model step step-1.model (scripted:authFails) failed: invalid API key');
  });
});
