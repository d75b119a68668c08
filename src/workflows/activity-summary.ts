/**
 * What the Web UI shows for an activity, from its deterministic id: "step 3: tool get_weather",
 * "plan 1: model openai:gpt-4o", "step 4: model openai:gpt-4o (after compaction)".
 */
export function activitySummary(activityId: string, what: string): string {
  const [label = '', part = ''] = activityId.split('.');
  const suffix = part.endsWith('-after-compaction') ? ' (after compaction)' : '';
  return `${label.replace('-', ' ')}: ${what}${suffix}`;
}
