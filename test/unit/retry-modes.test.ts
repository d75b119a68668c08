// The retry mode as recorded: each model, compaction, tool, instructions and MCP call of the corpus is scheduled as the workflow's tries say.
import { describe, expect, it } from '@jest/globals';
import { defaultPayloadConverter, type RetryPolicy } from '@temporalio/common';
import { msOptionalToNumber } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import { baseActivityId } from '../../src/protocol/workflow-retries';
import { CALL_RETRY_POLICY, type RetriedCall } from '../../src/workflows/loop/activity-retries';
import { corpusFiles, readCorpusHistory, workflowIdOf, workflowTypeOf } from '../support/history-corpus';

/**
 * `retriedCall` (src/workflows/loop/activity-retries.ts) schedules every try of a retried call. Replay
 * checks the commands' ids and types; this checks the rest against every recorded history: the
 * retry policy (lost workers and timeouts only, without limit), `.try-N` ids, and the input's
 * `workflowRetries` and `idempotencyKey` (MCP calls: neither, their failures are results).
 */
const KINDS: Record<string, RetriedCall> = {
  modelStep: 'model',
  compactConversation: 'compaction',
  runTool: 'tool',
  resolveInstructions: 'instructions',
  callMcpTool: 'mcp-tool',
};

/** A retry policy as the server stores it: its defaults filled in, durations in milliseconds. */
function normalised(policy: RetryPolicy): Record<string, unknown> {
  const initialMs = msOptionalToNumber(policy.initialInterval) ?? 1_000;
  return {
    initialMs,
    coefficient: policy.backoffCoefficient ?? 2,
    maximumMs: msOptionalToNumber(policy.maximumInterval) ?? 100 * initialMs,
    maximumAttempts: policy.maximumAttempts ?? 0,
    nonRetryable: policy.nonRetryableErrorTypes ?? [],
  };
}

/** A protobuf duration in milliseconds (its seconds are a number or a Long, depending on the decoder). */
function durationMs(duration: temporal.api.common.v1.IRetryPolicy['initialInterval']): number {
  return Number(duration?.seconds ?? 0) * 1_000 + Math.round((duration?.nanos ?? 0) / 1_000_000);
}

function recorded(policy: temporal.api.common.v1.IRetryPolicy | null | undefined): Record<string, unknown> {
  return {
    initialMs: durationMs(policy?.initialInterval),
    coefficient: policy?.backoffCoefficient,
    maximumMs: durationMs(policy?.maximumInterval),
    maximumAttempts: policy?.maximumAttempts ?? 0,
    nonRetryable: policy?.nonRetryableErrorTypes ?? [],
  };
}

/** What each retried call of an execution was scheduled with, against what the workflow's tries give, as readable lines. */
function mismatchesOf(file: string): { calls: number; mismatches: string[] } {
  const history = readCorpusHistory(file);
  const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
  const expected = normalised(CALL_RETRY_POLICY);
  const mismatches: string[] = [];
  let calls = 0;
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    const kind = scheduled ? KINDS[scheduled.activityType?.name ?? ''] : undefined;
    if (!scheduled || !kind) continue;
    calls++;
    const activityId = scheduled.activityId!;
    const say = (what: string) => mismatches.push(`${file} ${activityId}: ${what}`);
    if (JSON.stringify(recorded(scheduled.retryPolicy)) !== JSON.stringify(expected))
      say(`retry policy ${JSON.stringify(recorded(scheduled.retryPolicy))}, expected ${JSON.stringify(expected)}`);
    const input = defaultPayloadConverter.fromPayload<{ workflowRetries?: { attemptsBefore: number }; idempotencyKey?: string }>(
      scheduled.input!.payloads![0]!,
    );
    const triedByWorkflow = kind !== 'mcp-tool';
    if (triedByWorkflow !== (typeof input.workflowRetries?.attemptsBefore === 'number'))
      say(`workflowRetries ${JSON.stringify(input.workflowRetries)}`);
    if (!triedByWorkflow && baseActivityId(activityId) !== activityId) say('a .try-N id without workflow retries');
    const key = kind === 'tool' ? `${workflowIdOf(history)}/${started.firstExecutionRunId}/${baseActivityId(activityId)}` : undefined;
    if (input.idempotencyKey !== key) say(`idempotencyKey ${input.idempotencyKey}, expected ${key}`);
  }
  return { calls, mismatches };
}

describe('the retry mode in the recorded histories', () => {
  // Runs and threads (their turns run the same loop); not the workers' tool listing or users' own workflows (run-agent*), which make no agent calls.
  const files = corpusFiles().filter((file) => ['agentRun', 'agentThread'].includes(workflowTypeOf(readCorpusHistory(file)) ?? ''));
  const results = files.map((file) => ({ file, ...mismatchesOf(file) }));

  it('schedules every retried call as the workflow-retries mode says', () => {
    expect(results.flatMap((result) => result.mismatches)).toEqual([]);
  });

  it('has model, compaction, tool, instructions and MCP calls recorded', () => {
    const seen = new Set<string>();
    for (const file of files) {
      for (const event of readCorpusHistory(file).events ?? []) {
        const kind = KINDS[event.activityTaskScheduledEventAttributes?.activityType?.name ?? ''];
        if (kind) seen.add(kind);
      }
    }
    expect([...seen].sort()).toEqual(['compaction', 'instructions', 'mcp-tool', 'model', 'tool']);
    expect(results.reduce((sum, result) => sum + result.calls, 0)).toBeGreaterThan(100);
  });

  it('has workflow retries (.try-N) recorded for model and tool calls', () => {
    const retried = files.flatMap((file) =>
      (readCorpusHistory(file).events ?? [])
        .map((event) => event.activityTaskScheduledEventAttributes)
        .filter((scheduled) => scheduled && baseActivityId(scheduled.activityId!) !== scheduled.activityId),
    );
    expect(new Set(retried.map((scheduled) => scheduled!.activityType!.name))).toEqual(new Set(['modelStep', 'runTool']));
  });
});
