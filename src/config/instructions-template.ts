// Template variables in an agent's static instructions ({{agent_name}}, {{date}}, ...), filled deterministically. Pure (workflow-safe).

/**
 * The variables static instructions may use, and what each becomes. The workflow fills them from
 * its own state, so a run replays with the same text: `date` is the workflow's clock (the run's
 * start, or the turn's in a thread), never the worker's.
 */
export const INSTRUCTIONS_TEMPLATE_VARIABLES = {
  agent_name: "the agent's name",
  date: 'the date the run (or the thread turn) started, UTC, as YYYY-MM-DD',
  resource_id: "the run's resource id (empty when it has none)",
  thread_id: "the thread's id (empty in a run)",
} as const;

/** One of the template variables. */
export type InstructionsTemplateVariable = keyof typeof INSTRUCTIONS_TEMPLATE_VARIABLES;

/** `{{ name }}`: a variable, spaces inside the braces allowed. */
const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The variable names `text` uses, in order of first use. */
export function templateVariablesOf(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(VARIABLE)) if (!names.includes(match[1]!)) names.push(match[1]!);
  return names;
}

/** Whether `text` uses any template variable (known or not). */
export function usesTemplateVariables(text: string): boolean {
  return templateVariablesOf(text).length > 0;
}

/** The names `text` uses that are not template variables (the config refuses them). */
export function unknownTemplateVariables(text: string): string[] {
  return templateVariablesOf(text).filter((name) => !(name in INSTRUCTIONS_TEMPLATE_VARIABLES));
}

/** What the variables stand for in one run (or turn). */
export interface TemplateValues {
  agentName: string;
  /** Epoch milliseconds on the workflow's clock. */
  startedAt: number;
  resourceId?: string;
  threadId?: string;
}

/**
 * `text` with each known variable replaced by its value; anything else is left as written.
 * @example
 * fillInstructionsTemplate('You are {{agent_name}}. Today is {{ date }}.', { agentName: 'support', startedAt: Date.UTC(2026, 10, 24) });
 * // 'You are support. Today is 2026-11-24.'
 */
export function fillInstructionsTemplate(text: string, values: TemplateValues): string {
  const filled: Record<InstructionsTemplateVariable, string> = {
    agent_name: values.agentName,
    date: new Date(values.startedAt).toISOString().slice(0, 10),
    resource_id: values.resourceId ?? '',
    thread_id: values.threadId ?? '',
  };
  return text.replace(VARIABLE, (whole, name: string) => (name in filled ? filled[name as InstructionsTemplateVariable] : whole));
}
