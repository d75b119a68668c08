import { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * Encoded history bytes per agent step: every event from the scheduling of step N's model call up
 * to the scheduling of step N+1's.
 */
export function historyBytesPerStep(events: HistoryEvent[]): Map<number, number> {
  const perStep = new Map<number, number>();
  let step = 0;
  for (const event of events) {
    const activityId = event.activityTaskScheduledEventAttributes?.activityId;
    const match = activityId ? /^step-(\d+)\.model$/.exec(activityId) : null;
    if (match) step = Number(match[1]);
    if (step === 0) continue;
    const size = temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
    perStep.set(step, (perStep.get(step) ?? 0) + size);
  }
  return perStep;
}

/** A run's whole encoded history as text, to check what it does (not) contain. */
export async function historyText(run: { workflow: { fetchHistory(): Promise<temporal.api.history.v1.IHistory> } }): Promise<string> {
  return Buffer.from(temporal.api.history.v1.History.encode(await run.workflow.fetchHistory()).finish()).toString('latin1');
}
