// What a run did with each skills batch it was signalled (applied, ignored, or reloaded after a gap), read from its history.
import { startedRunInput } from './started-input';
import type { temporal } from '@temporalio/proto';
import { validateSkillBatch } from '../protocol/message-validation';
import type { SkillSnapshot } from '../protocol/skill-types';
import { WireName } from '../protocol/wire-names';
import { decode } from './history-events';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** What the run did with one valid `skillsChanged` signal. */
export interface SkillBatchOutcome {
  applied: boolean;
  detail: string;
}

/**
 * The outcome of each valid `skillsChanged` signal, by event id, by the run's own rule
 * (`RunSkills.offer`): a batch applies when it is newer than the version the run has of its
 * source and starts from the skills the run has (`previousHash`); one that is not newer, or of a
 * source the run does not follow, is ignored; one that starts elsewhere shows a gap, and the run
 * reloads the whole source before its next model call. The run's versions come from the
 * `loadSkillSources` results (version 0 at the start of each execution, the gap's version after a
 * reload) and the batches applied since. Invalid payloads are `ignoredSignals`' to explain.
 */
export function skillBatchOutcomes(events: HistoryEvent[]): Map<string, SkillBatchOutcome> {
  const outcomes = new Map<string, SkillBatchOutcome>();
  const input = startedRunInput(events);
  const followed = input?.config?.skill_sources ?? [];
  const sources = new Map<string, { version: number; hash: string }>();
  const reloads = new Map<string, number>();
  const loads = new Set<string>();
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'loadSkillSources') {
      loads.add(String(event.eventId));
      continue;
    }
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed && loads.has(String(completed.scheduledEventId))) {
      for (const snapshot of decode<SkillSnapshot[]>(completed.result?.payloads?.[0]) ?? []) {
        sources.set(snapshot.source, { version: reloads.get(snapshot.source) ?? 0, hash: snapshot.hash });
        reloads.delete(snapshot.source);
      }
      continue;
    }
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName !== WireName.skillsChangedSignal) continue;
    const checked = validateSkillBatch(decode(signal.input?.payloads?.[0]));
    if (!checked.ok) continue;
    const batch = checked.value;
    const current = sources.get(batch.source) ?? { version: 0, hash: '' };
    let outcome: SkillBatchOutcome;
    if (!followed.includes(batch.source)) outcome = { applied: false, detail: `the run does not follow source ${batch.source}` };
    else if (batch.version <= current.version)
      outcome = { applied: false, detail: `version ${batch.version} is not newer than version ${current.version} the run has of ${batch.source}` };
    else if (batch.previousHash !== current.hash) {
      reloads.set(batch.source, Math.max(batch.version, reloads.get(batch.source) ?? 0));
      outcome = {
        applied: false,
        detail: `version ${batch.version} does not follow the skills the run had (a batch was missed): the run reloaded ${batch.source} instead`,
      };
    } else {
      sources.set(batch.source, { version: batch.version, hash: batch.hash });
      outcome = { applied: true, detail: `version ${batch.version} of ${batch.source}` };
    }
    outcomes.set(String(event.eventId), outcome);
  }
  return outcomes;
}
