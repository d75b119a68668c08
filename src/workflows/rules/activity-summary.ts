/**
 * What the Web UI shows for an activity, from its deterministic id: "step 3: tool get_weather",
 * "plan 1: model openai:gpt-4o", "step 4: model openai:gpt-4o (after compaction)", and for a
 * workflow-level retry (`….try-2`) "step 3: tool charge_card (try 2)".
 */
export function activitySummary(activityId: string, what: string): string {
  const [label = '', part = ''] = activityId.split('.');
  const compaction = part.endsWith('-after-compaction') ? ' (after compaction)' : '';
  const tryNumber = /\.try-(\d+)$/.exec(activityId)?.[1];
  return `${label.replace('-', ' ')}: ${what}${compaction}${tryNumber ? ` (try ${tryNumber})` : ''}`;
}
