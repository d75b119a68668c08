// Transcripts rendered for a terminal: one line or more an entry.
import { describeCallDecider, type CallDecider } from '../protocol/call-deciders';
import { callDecidersOf } from '../protocol/tool-result-metadata';
import type { ToolEntry, Transcript, TranscriptEntry } from './history-entries';
import { describeForkEdit } from '../protocol/fork-edit-description';
import type { ForkEdit } from '../protocol/fork-types';
import type { Usage } from '../protocol/messages';
import { describeCost, formatUsd } from '../protocol/model-price';
import type { ModelStepResult } from '../protocol/run-types';

/** Renders a transcript for a terminal. */
export function renderTranscript(transcript: Transcript): string {
  return [`Run ${transcript.workflowId} (${transcript.runId})`, ...renderEntries(transcript.entries)].join('\n');
}

/** The lines of transcript entries, one or more an entry (a run's, or one turn's of a thread). */
export function renderEntries(entries: TranscriptEntry[]): string[] {
  const lines: string[] = [];
  for (const entry of entries) {
    const time = entry.at.slice(11, 23);
    switch (entry.kind) {
      case 'started': {
        // A named agent shows the definition that answered: name@version (label).
        const agent = entry.agentVersion ?? entry.agent;
        if (entry.continued)
          lines.push(
            `${time}  continued (new run): agent ${agent}, model ${entry.model}${entry.handoffFrom ? ` (handoff from ${entry.handoffFrom})` : ''}`,
          );
        else {
          lines.push(`${time}  started: agent ${agent}, ${entry.model ? `model ${entry.model}` : 'not resolved by the workers'}`);
          if (entry.task !== undefined) lines.push(`              task: ${entry.task}`);
        }
        if (entry.forkOf)
          lines.push(
            `              forked from ${entry.forkOf.workflowId} (${entry.forkOf.runId}) after step ${entry.forkOf.step}: steps 1-${entry.forkOf.step} are in that run's history`,
          );
        for (const edit of entry.forkOf?.edits ?? []) lines.push(...renderForkEdit(edit));
        break;
      }
      case 'model': {
        if (entry.loopNudge) lines.push(`${time}  loop detection nudged the model (a user message before this step):`, indent(entry.loopNudge));
        lines.push(`${time}  ${stepLabel(entry.activityId)} · model ${entry.model} (${formatDuration(entry.durationMs)}${retries(entry.attempts)})`);
        if (entry.overBudget)
          lines.push(
            `              over the budget: prompt ${entry.overBudget.promptTokens} tokens, limit ${entry.overBudget.limitTokens} (no model call)`,
          );
        if (entry.overCostLimit) lines.push(`              over the cost limit: ${describeOverCostLimit(entry.overCostLimit)} (no model call)`);
        if (entry.usage) lines.push(`              ${describeCall(entry.usage, entry.costUsd)}`);
        if (entry.text) lines.push(indent(entry.text));
        for (const call of entry.toolCalls) lines.push(`              → ${call.name}(${compact(call.args)})`);
        if (entry.outputError) lines.push(`              ✗ output rejected (output_type): ${entry.outputError}; the model is asked for a correction`);
        if (entry.failure) lines.push(`              ✗ ${entry.failure}`);
        break;
      }
      case 'compaction':
        lines.push(
          `${time}  ${stepLabel(entry.activityId)} · compaction of ${entry.summarisedMessages} messages · model ${entry.model} (${formatDuration(entry.durationMs)}${retries(entry.attempts)})`,
        );
        if (entry.summary) lines.push(indent(`summary: ${truncate(entry.summary, 400)}`));
        if (entry.usage) lines.push(`              ${describeCall(entry.usage, entry.costUsd)}`);
        if (entry.failure) lines.push(`              ✗ ${entry.failure}`);
        break;
      case 'tool':
        lines.push(...renderTool(time, entry));
        break;
      case 'mcp-tools':
        lines.push(`${time}  MCP tools listed: ${entry.tools.join(', ') || 'none'}`);
        for (const server of entry.unavailable) lines.push(`              ✗ server ${server.server} unavailable: ${server.error}`);
        if (entry.failure) lines.push(`              ✗ ${entry.failure}`);
        break;
      case 'skills-loaded':
        lines.push(`${time}  skills loaded${entry.sources.length === 0 ? ': none' : ''}`);
        for (const source of entry.sources) {
          lines.push(`              ${source.source}: ${source.skills.join(', ') || 'no skills'}`);
          for (const error of source.errors) lines.push(`              ✗ ${error.file}: ${error.message}`);
        }
        if (entry.failure) lines.push(`              ✗ ${entry.failure}`);
        break;
      case 'child': {
        const duration = entry.durationMs === null ? '' : ` (${formatDuration(entry.durationMs)})`;
        lines.push(
          `${time}  sub-agent ${entry.workflowId}${entry.runId ? ` (${entry.runId})` : ''} · agent ${entry.agent}: ${entry.status}${duration}`,
        );
        lines.push(indent(`task: ${truncate(entry.task, 200)}`));
        if (entry.result) lines.push(indent(`${entry.result.stopReason} after ${entry.result.steps} steps: ${truncate(entry.result.output, 400)}`));
        if (entry.failure) lines.push(`              ✗ ${entry.failure}`);
        break;
      }
      case 'signal':
      case 'update':
        // A payload is shown as sent: `null` is not `{}`.
        lines.push(`${time}  ${entry.kind} ${entry.name}: ${truncate(JSON.stringify(entry.payload) ?? 'no payload', 200)}`);
        if (entry.ignored) lines.push(`              ✗ ignored by the run: ${entry.ignored}`);
        if (entry.applied) lines.push(`              ✓ applied by the run: ${entry.applied}`);
        break;
      case 'finished':
        lines.push(
          `${time}  ${entry.status}${entry.failureType ? ` (${entry.failureType})` : ''}${entry.result ? `: ${entry.result.stopReason} after ${entry.result.steps} steps` : ''}${entry.failure ? `: ${entry.failure}` : ''}`,
        );
        if (entry.result?.stopDetail) lines.push(indent(entry.result.stopDetail));
        if (entry.result?.usage)
          lines.push(
            `              total: ${entry.result.usage.inputTokens} in / ${entry.result.usage.outputTokens} out tokens, ${describeCost(entry.result.usage)}`,
          );
        if (entry.result?.output) lines.push(indent(entry.result.output));
        break;
    }
  }
  return lines;
}

function renderTool(time: string, entry: ToolEntry): string[] {
  const mark = entry.failure || entry.result?.isError ? '✗' : entry.result || entry.via !== 'workflow' ? '✓' : '·';
  const where =
    entry.via === 'mcp'
      ? ` · MCP ${entry.server ?? ''}`
      : entry.via === 'workflow'
        ? ' · by the workflow'
        : entry.via === 'recorded'
          ? ' · recorded result (not run)'
          : '';
  const label = entry.via === 'workflow' ? `step ${entry.step}` : stepLabel(entry.activityId);
  const duration = entry.via === 'workflow' && !entry.result ? '' : ` (${formatDuration(entry.durationMs)}${retries(entry.attempts)})`;
  const lines = [`${time}  ${label} · tool ${entry.tool}(${compact(entry.args)})${where} ${mark}${duration}`];
  const result = entry.result;
  if (result) {
    lines.push(indent(truncate(result.content, 400)));
    for (const note of result.progress ?? []) {
      lines.push(
        `              progress ${note.progress}${note.total !== undefined ? `/${note.total}` : ''}${note.message ? `: ${note.message}` : ''}`,
      );
    }
    const metadata = result.metadata;
    const extras = [
      `status ${metadata.status}`,
      ...(result.errorCode ? [`error ${result.errorCode}`] : []),
      `approval ${metadata.approval_status}${metadata.approval_id ? ` ${metadata.approval_id}` : ''}`,
      // Who decided besides the model (a hook, a tool-policy rule), also in results recorded before `decided_by`.
      ...deciders(callDecidersOf(metadata)),
      ...(Object.keys(metadata.injected_args).length > 0 ? [`injected ${compact(metadata.injected_args)}`] : []),
      ...(metadata.offloaded_artifact_id ? [`artifact ${metadata.offloaded_artifact_id}`] : []),
    ];
    lines.push(`              [${extras.join(' · ')}]`);
  } else if (entry.via === 'workflow') {
    lines.push('              (result not in the history yet: `events` or `status` show it while the run goes on)');
  }
  if (entry.failure) lines.push(`              ✗ ${entry.failure}`);
  return lines;
}

/** An edit a fork made to its origin's conversation: at which step, what was recorded there, what replaced it. */
function renderForkEdit(edit: ForkEdit): string[] {
  const recorded =
    edit.kind === 'tool-result' && edit.pending
      ? '(none: the call had no result yet)'
      : edit.recorded === null
        ? "(not in the origin's history)"
        : truncate(edit.recorded, 400);
  return [
    `              step ${edit.step} · edited: ${describeForkEdit(edit)}`,
    indent(`  recorded: ${recorded}`),
    indent(`  replaced by${edit.kind === 'tool-result' && edit.isError ? ' (an error result)' : ''}: ${truncate(edit.content, 400)}`),
  ];
}

/** "1000 in / 500 out tokens · $0.0200" (or "· price unknown"); no cost for calls of workers before pricing. */
function describeCall(usage: Usage, costUsd: number | null | undefined): string {
  const cached = usage.cachedInputTokens ? ` (${usage.cachedInputTokens} cached)` : '';
  const cost = costUsd === undefined ? '' : costUsd === null ? ' · price unknown' : ` · $${formatUsd(costUsd)}`;
  return `${usage.inputTokens} in${cached} / ${usage.outputTokens} out tokens${cost}`;
}

function describeOverCostLimit(over: NonNullable<ModelStepResult['overCostLimit']>): string {
  if (over.unpriced) return `no price for the model, $${formatUsd(over.remainingUsd)} left`;
  return `worst case $${formatUsd(over.worstCaseUsd)} (${over.promptTokens} prompt tokens, up to ${over.maxOutputTokens} out), $${formatUsd(over.remainingUsd)} left`;
}

function deciders(list: readonly CallDecider[]): string[] {
  return list.length > 0 ? [`decided by ${list.map((decider) => `${describeCallDecider(decider)}: ${decider.action}`).join(', ')}`] : [];
}

function retries(attempts: number): string {
  return attempts > 1 ? `, ${attempts} attempts` : '';
}

/** "step-3.tool-1.x" → "step 3"; "plan-1.model" → "plan 1" (the planner phase). */
function stepLabel(activityId: string): string {
  const [phase = '', kind = ''] = activityId.split('.');
  return `${phase.replace('-', ' ')}${kind === 'model-after-compaction' ? ' (after compaction)' : ''}`;
}

function formatDuration(ms: number | null): string {
  if (ms === null) return 'running';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function compact(value: unknown): string {
  return truncate(JSON.stringify(value ?? {}), 200);
}

/** The text cut to `max` characters (with an ellipsis). */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Every line of the text indented as entries' details are. */
export function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `              ${line}`)
    .join('\n');
}
