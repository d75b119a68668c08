// What an agent's tool policies decided about one call: recorded in approval requests and tool-result metadata.

/** What a tool policy rule does with a call it matches. */
export type ToolPolicyAction = 'allow' | 'deny' | 'require_approval';

/**
 * The rule of `tool_policies` that decided a call: its index in the list, its action, and its
 * reason (the rule's own `reason`, or one made from the rule). A denied call's error result, an
 * approval request the rule asked for, and the metadata of every result of a matched call carry it.
 */
export interface ToolPolicyMatch {
  /** The rule's index in the agent's `tool_policies`. */
  rule: number;
  action: ToolPolicyAction;
  reason: string;
}
