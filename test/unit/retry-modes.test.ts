// Both sides of the retry patch as recorded: each model, compaction and tool call of the corpus is scheduled as its mode says.
import { describe, expect, it } from '@jest/globals';
import { defaultPayloadConverter, type RetryPolicy } from '@temporalio/common';
import { msOptionalToNumber } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import { baseActivityId } from '../../src/protocol/workflow-retries';
import { callRetryPolicy, type RetriedCall } from '../../src/workflows/activity-retries';
import { UNBOUNDED_INFRASTRUCTURE_RETRIES_PATCH } from '../../src/workflows/patches';
import { corpusFiles, patchMarkersOf, readCorpusHistory, workflowIdOf, workflowTypeOf } from '../support/history-corpus';

/**
 * `retriedCall` (src/workflows/activity-retries.ts) owns the choice between the two retry modes.
 * Replay checks the commands' ids and types; this checks the rest of what each mode schedules
 * against every recorded history: the retry policy, `.try-N` ids, and the input's
 * `workflowRetries` and `idempotencyKey`, on the side of the `unbounded-infrastructure-retries`
 * patch the history's execution is on (its marker).
 */
const KINDS: Record<string, RetriedCall> = { modelStep: 'model', compactConversation: 'compaction', runTool: 'tool', callMcpTool: 'mcp-tool' };

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

/** What each retried call of an execution was scheduled with, against what its mode gives, as readable lines. */
function mismatchesOf(file: string): { calls: number; inWorkflow: boolean; mismatches: string[] } {
  const history = readCorpusHistory(file);
  const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
  const [runInput] = (started.input?.payloads ?? []).map((payload) => defaultPayloadConverter.fromPayload<{ config: { max_retries?: number } }>(payload));
  const config = { max_retries: runInput?.config.max_retries ?? 3 };
  const inWorkflow = patchMarkersOf(history).includes(UNBOUNDED_INFRASTRUCTURE_RETRIES_PATCH);
  const mismatches: string[] = [];
  let calls = 0;
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    const kind = scheduled ? KINDS[scheduled.activityType?.name ?? ''] : undefined;
    if (!scheduled || !kind) continue;
    calls++;
    const activityId = scheduled.activityId!;
    const say = (what: string) => mismatches.push(`${file} ${activityId}: ${what}`);
    const expected = normalised(callRetryPolicy(kind, config, inWorkflow));
    if (JSON.stringify(recorded(scheduled.retryPolicy)) !== JSON.stringify(expected)) say(`retry policy ${JSON.stringify(recorded(scheduled.retryPolicy))}, expected ${JSON.stringify(expected)}`);
    const input = defaultPayloadConverter.fromPayload<{ workflowRetries?: { attemptsBefore: number }; idempotencyKey?: string }>(scheduled.input!.payloads![0]!);
    const triedByWorkflow = inWorkflow && kind !== 'mcp-tool';
    if (triedByWorkflow !== (typeof input.workflowRetries?.attemptsBefore === 'number')) say(`workflowRetries ${JSON.stringify(input.workflowRetries)}`);
    if (!triedByWorkflow && baseActivityId(activityId) !== activityId) say('a .try-N id without workflow retries');
    const key = inWorkflow && kind === 'tool' ? `${workflowIdOf(history)}/${started.firstExecutionRunId}/${baseActivityId(activityId)}` : undefined;
    if (input.idempotencyKey !== key) say(`idempotencyKey ${input.idempotencyKey}, expected ${key}`);
  }
  return { calls, inWorkflow, mismatches };
}

describe('the two retry modes in the recorded histories', () => {
  // Runs and threads (their turns run the same loop); not the workers' tool listing or users' own workflows (run-agent*), which make no agent calls.
  const files = corpusFiles().filter((file) => ['agentRun', 'agentThread'].includes(workflowTypeOf(readCorpusHistory(file)) ?? ''));
  const results = files.map((file) => ({ file, ...mismatchesOf(file) }));

  it('schedules every retried call as its side of the patch says', () => {
    expect(results.flatMap((result) => result.mismatches)).toEqual([]);
  });

  it('has model, compaction, tool and MCP calls on both sides', () => {
    const seen = new Set<string>();
    for (const file of files) {
      const history = readCorpusHistory(file);
      const side = patchMarkersOf(history).includes(UNBOUNDED_INFRASTRUCTURE_RETRIES_PATCH) ? 'since' : 'before';
      for (const event of history.events ?? []) {
        const kind = KINDS[event.activityTaskScheduledEventAttributes?.activityType?.name ?? ''];
        if (kind) seen.add(`${kind} ${side}`);
      }
    }
    expect([...seen].sort()).toEqual(['compaction before', 'compaction since', 'mcp-tool before', 'mcp-tool since', 'model before', 'model since', 'tool before', 'tool since']);
  });

  it('has workflow retries (.try-N) recorded for model and tool calls', () => {
    const retried = results.filter((result) => result.inWorkflow).flatMap((result) => {
      const history = readCorpusHistory(result.file);
      return (history.events ?? []).map((event) => event.activityTaskScheduledEventAttributes).filter((scheduled) => scheduled && baseActivityId(scheduled.activityId!) !== scheduled.activityId);
    });
    expect(new Set(retried.map((scheduled) => scheduled!.activityType!.name))).toEqual(new Set(['modelStep', 'runTool']));
  });
});
