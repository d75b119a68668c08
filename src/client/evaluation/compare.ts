import { canonicalJson, matchRecordedCalls } from '../../protocol/recorded-calls';
import type { Usage } from '../../protocol/messages';
import type { RunRecord } from './run-record';

/** One side of a comparison: what a run answered and what it cost. */
export interface RunSummary {
  workflowId: string;
  output: string;
  structuredOutput?: unknown;
  stopReason: string;
  steps: number;
  toolCalls: number;
  tokensByModel: Record<string, Usage>;
  wallTimeMs: number;
}

/** A recorded run against its evaluation run. */
export interface RunComparison {
  recorded: RunSummary;
  evaluation: RunSummary;
  sameAnswer: boolean;
  /** Null when neither run has a structured answer. */
  sameStructuredOutput: boolean | null;
  /** The first step whose tool calls (tools and arguments) differ; null when every step's match. */
  firstDivergentStep: number | null;
  /** What each run called at `firstDivergentStep` (empty: no tool call, an answer or the run's end), or null. */
  divergence: StepDivergence | null;
  /** Calls of the evaluation run the recording did not have (errors, or run live with `--live-tools`). */
  unmatchedToolCalls: Array<{ step: number; call: string }>;
  /** A different answer, structured answer or tool calls (or a failed evaluation run). */
  diverged: boolean;
  /** Why the evaluation run failed, when it did (then it has no answer to compare). */
  failure?: string;
}

/** A tool call by step and matching key. */
type StepCall = { step: number; key: string };

/** The tool calls (matching keys) each run made at the first step where they differ. */
export interface StepDivergence {
  step: number;
  recorded: string[];
  evaluation: string[];
  /** The recorded run's last step: at or before `step` the recording had answered. */
  recordedSteps: number;
}

/** Compares a recorded run with the run that replayed it. Pure. */
export function compareRuns(recorded: RunRecord, evaluation: RunRecord): RunComparison {
  const sameAnswer = recorded.result.output.trim() === evaluation.result.output.trim();
  const hasStructured = recorded.result.structuredOutput !== undefined || evaluation.result.structuredOutput !== undefined;
  const sameStructuredOutput = hasStructured
    ? canonicalJson(recorded.result.structuredOutput) === canonicalJson(evaluation.result.structuredOutput)
    : null;
  const matched = matchRecordedCalls(
    recorded.toolCalls.map((call) => call.key),
    evaluation.toolCalls.map((call) => call.key),
  );
  // A call the workflow answered itself (a handoff, say) looked no recording up: it is not "not recorded".
  const unmatchedToolCalls = evaluation.toolCalls
    .filter((call, index) => !matched[index] && !call.byWorkflow)
    .map((call) => ({ step: call.step, call: call.key }));
  const firstDivergentStep = firstDivergence(recorded.toolCalls, evaluation.toolCalls);
  const callsAt = (record: RunRecord, step: number) => record.toolCalls.filter((call) => call.step === step).map((call) => call.key);
  const divergence =
    firstDivergentStep === null
      ? null
      : {
          step: firstDivergentStep,
          recorded: callsAt(recorded, firstDivergentStep),
          evaluation: callsAt(evaluation, firstDivergentStep),
          recordedSteps: recorded.result.steps,
        };
  return {
    recorded: summary(recorded),
    evaluation: summary(evaluation),
    sameAnswer,
    sameStructuredOutput,
    firstDivergentStep,
    divergence,
    unmatchedToolCalls,
    diverged: !sameAnswer || sameStructuredOutput === false || firstDivergentStep !== null,
  };
}

/** The first step at which the two runs' tool calls (as multisets of keys) differ. */
export function firstDivergence(recorded: readonly StepCall[], evaluation: readonly StepCall[]): number | null {
  const byStep = (calls: readonly StepCall[]) => {
    const steps = new Map<number, string[]>();
    for (const call of calls) steps.set(call.step, [...(steps.get(call.step) ?? []), call.key]);
    return steps;
  };
  const before = byStep(recorded);
  const after = byStep(evaluation);
  const steps = [...new Set([...before.keys(), ...after.keys()])].sort((a, b) => a - b);
  for (const step of steps) {
    const a = [...(before.get(step) ?? [])].sort();
    const b = [...(after.get(step) ?? [])].sort();
    if (a.length !== b.length || a.some((key, index) => key !== b[index])) return step;
  }
  return null;
}

function summary(record: RunRecord): RunSummary {
  const { result } = record;
  return {
    workflowId: record.workflowId,
    output: result.output,
    ...(result.structuredOutput !== undefined ? { structuredOutput: result.structuredOutput } : {}),
    stopReason: result.stopReason,
    steps: result.steps,
    toolCalls: record.toolCalls.length,
    tokensByModel: result.usage.byModel,
    wallTimeMs: record.wallTimeMs,
  };
}

/** The comparison for an evaluation run that failed: diverged, with the failure's message. */
export function failedComparison(recorded: RunRecord, evaluationWorkflowId: string, error: unknown): RunComparison {
  const messages: string[] = [];
  for (let current: unknown = error; current instanceof Error && messages.length < 4; current = current.cause) messages.push(current.message);
  return {
    recorded: summary(recorded),
    evaluation: { workflowId: evaluationWorkflowId, output: '', stopReason: 'failed', steps: 0, toolCalls: 0, tokensByModel: {}, wallTimeMs: 0 },
    sameAnswer: false,
    sameStructuredOutput: null,
    firstDivergentStep: null,
    divergence: null,
    unmatchedToolCalls: [],
    diverged: true,
    failure: messages.join(': ') || String(error),
  };
}
