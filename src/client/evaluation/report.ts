import type { Usage } from '../../protocol/messages';
import type { RunComparison } from './compare';
import type { EvaluationReport } from './evaluate';
import type { DatasetEvaluationReport } from './evaluate-dataset';

/** An evaluation report for people: one block per run, then the totals and the verdict. */
export function renderEvaluation(report: EvaluationReport): string {
  const lines = [
    `Evaluation ${report.evaluation}: ${report.total.runs} recorded run(s) replayed as ${report.agent} on ${report.model}` +
      ` (tool calls answered from the recordings; unrecorded calls ${report.liveTools ? 'run live' : 'get an error'})`,
    '',
  ];
  for (const run of report.runs) lines.push(...renderRun(run), '');
  const { total } = report;
  lines.push(
    `Total: ${total.runs} run(s), ${total.diverged} diverged, ${total.sameAnswers} same answer(s), ${total.unmatchedToolCalls} unmatched tool call(s)`,
    `  steps ${total.recorded.steps} → ${total.evaluation.steps} · tokens ${tokens(total.recorded.tokensByModel)} → ${tokens(total.evaluation.tokensByModel)} · time ${seconds(total.recorded.wallTimeMs)} → ${seconds(total.evaluation.wallTimeMs)}`,
    report.passed
      ? `PASSED: ${total.diverged} diverged run(s), at most ${report.maxDiverged} allowed`
      : `FAILED: ${total.diverged} diverged run(s), at most ${report.maxDiverged} allowed`,
  );
  return lines.join('\n');
}

/** A dataset evaluation for people: one line per trial with its scores, each scorer's mean, the verdict. */
export function renderDatasetEvaluation(report: DatasetEvaluationReport): string {
  const lines = [
    `Evaluation ${report.evaluation}: ${report.dataset} as ${report.agent} on ${report.model}${report.trials > 1 ? `, ${report.trials} trials per example` : ''}`,
    '',
  ];
  for (const result of report.results) {
    const trial = report.trials > 1 ? ` #${result.trial}` : '';
    lines.push(`${result.passed ? 'passed' : 'FAILED'}  ${result.id}${trial} → ${result.workflowId}`);
    if (result.failure) lines.push(`  the evaluation run failed: ${result.failure}`);
    for (const score of result.scores)
      lines.push(
        `  ${score.passed ? ' ' : '✗'} ${score.scorer} ${score.score.toFixed(2)} (threshold ${score.threshold})${score.detail ? `: ${oneLine(score.detail, 160)}` : ''}`,
      );
    if (!result.passed && !result.failure) lines.push(`  answer: ${oneLine(result.output, 200)}`);
  }
  const { total } = report;
  lines.push(
    '',
    'Scorers: ' +
      report.scorers
        .map((scorer) => `${scorer.name} mean ${scorer.mean.toFixed(2)} (${scorer.passed}/${scorer.scored} ≥ ${scorer.threshold})`)
        .join(' · '),
    `Total: ${total.results} trial(s), ${total.passed} passed, ${total.failed} failed · tokens ${total.inputTokens}/${total.outputTokens} · cost $${total.costUsd.toFixed(4)} · time ${seconds(total.wallTimeMs)}`,
    `${report.passed ? 'PASSED' : 'FAILED'}: ${total.failed} failed trial(s), at most ${report.maxFailed} allowed`,
  );
  return lines.join('\n');
}

function renderRun(run: RunComparison): string[] {
  const { recorded, evaluation } = run;
  const verdict = run.diverged ? 'DIVERGED' : 'same';
  const lines = [`${verdict}  ${recorded.workflowId} → ${evaluation.workflowId}`];
  if (run.failure) return [...lines, `  the evaluation run failed: ${run.failure}`];
  lines.push(
    `  answer: ${run.sameAnswer ? 'same' : 'different'}${run.sameStructuredOutput === null ? '' : ` · structured output: ${run.sameStructuredOutput ? 'same' : 'different'}`}` +
      ` · tool calls: ${run.firstDivergentStep === null ? 'same' : `diverge at step ${run.firstDivergentStep}`} · unmatched: ${run.unmatchedToolCalls.length}`,
    `  steps ${recorded.steps} → ${evaluation.steps} (${recorded.stopReason} → ${evaluation.stopReason}) · tokens ${tokens(recorded.tokensByModel)} → ${tokens(evaluation.tokensByModel)} · time ${seconds(recorded.wallTimeMs)} → ${seconds(evaluation.wallTimeMs)}`,
  );
  if (run.divergence) lines.push(`  ${describeDivergence(run.divergence)}`);
  for (const call of run.unmatchedToolCalls) lines.push(`  not recorded: step ${call.step} ${oneLine(call.call, 160)}`);
  if (!run.sameAnswer) lines.push(`  recorded answer: ${oneLine(recorded.output, 200)}`, `  new answer:      ${oneLine(evaluation.output, 200)}`);
  return lines;
}

/** "at step 2 the recording called echo(…); this run called echo(…)", or what stood in place of calls. */
function describeDivergence(divergence: NonNullable<RunComparison['divergence']>): string {
  const { step, recorded, evaluation, recordedSteps } = divergence;
  const recording =
    recorded.length > 0
      ? `called ${recorded.map((call) => oneLine(call, 120)).join(', ')}`
      : step > recordedSteps
        ? `had finished at step ${recordedSteps}`
        : step === recordedSteps
          ? 'answered (no tool call)'
          : 'made no tool call';
  const now = evaluation.length > 0 ? `called ${evaluation.map((call) => oneLine(call, 120)).join(', ')}` : 'made no tool call';
  return `at step ${step} the recording ${recording}; this run ${now}`;
}

function tokens(byModel: Record<string, Usage>): string {
  const models = Object.entries(byModel);
  return models.length === 0 ? 'none' : models.map(([model, usage]) => `${model} ${usage.inputTokens}/${usage.outputTokens}`).join(', ');
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
