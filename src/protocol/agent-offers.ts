// What a worker says of the agents it offers (`durable-agents agents list`): names, versions, what each runs with. Sandbox-safe.

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
}
