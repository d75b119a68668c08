/**
 * The name of the tool that hands a conversation to another agent: `transfer_to_<agent>`, with
 * characters a tool name cannot have replaced by `_`. Pure: the config check (two handoffs, or a
 * handoff and a tool, that would share a name) and the workflow use the same rule.
 */
const PREFIX = 'transfer_to_';

export function handoffToolName(agent: string): string {
  return `${PREFIX}${agent.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}
