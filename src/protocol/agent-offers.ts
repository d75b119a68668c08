// What a worker says of the agents it offers (`durable-agents agents list`): names, versions, what each runs with. Sandbox-safe.

/** The doors an agent config's `expose` may name: the gateway (`http`), the MCP server, the A2A server. */
export const AGENT_DOORS = ['http', 'mcp', 'a2a'] as const;
/** One of `AGENT_DOORS`. */
export type AgentDoor = (typeof AGENT_DOORS)[number];

/** One agent definition a worker offers. */
export interface AgentOffer {
  name: string;
  /** The definition's content hash. */
  version: string;
  /** The label the team gave this version, or null. */
  label: string | null;
  model: string;
  tools: string[];
  handoffs: string[];
  /** Config fields callers may override for one run or thread. */
  overridable: string[];
  /** The config's `description`, when it has one. */
  description?: string;
  /** The config's `output_type` (JSON Schema of its structured answer), when it has one. */
  outputType?: Record<string, unknown>;
  /** The config's `expose`, when it has one (absent: every door). */
  expose?: AgentDoor[];
}

/** Whether `offer` is open at `door`: an agent without `expose` is open at every door. */
export function isExposedAt(offer: Pick<AgentOffer, 'expose'>, door: AgentDoor): boolean {
  return offer.expose === undefined || offer.expose.includes(door);
}
