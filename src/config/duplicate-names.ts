// Names an agent config must not repeat: its tools, MCP servers and handoffs, and the tools its handoffs become.
import { handoffToolName } from '../protocol/handoff-tool-names';

/** One duplicate, at its field. */
export interface DuplicateNameProblem {
  path: string[];
  message: string;
}

interface NamedParts {
  name: string;
  tools: string[];
  handoffs: string[];
  mcp_servers: Array<{ name: string }>;
}

/**
 * The seeds' "duplicate tools" and "duplicate handoffs" cases, as config problems: a tool, MCP
 * server or handoff named twice; two handoffs whose transfer tools share a name (`a.b` and `a_b`
 * both become `transfer_to_a_b`, so the model could reach only one of them); a tool named as one
 * of the handoffs' transfer tools.
 */
export function duplicateNameProblems(config: NamedParts): DuplicateNameProblem[] {
  const problems: DuplicateNameProblem[] = [];
  for (const name of repeated(config.tools)) problems.push({ path: ['tools'], message: `Duplicate tool name '${name}' on agent '${config.name}'` });
  for (const name of repeated(config.mcp_servers.map((server) => server.name))) {
    problems.push({ path: ['mcp_servers'], message: `Duplicate MCP server name '${name}' on agent '${config.name}'` });
  }
  for (const name of repeated(config.handoffs))
    problems.push({ path: ['handoffs'], message: `Duplicate handoff name '${name}' on agent '${config.name}'` });
  const targets = new Map<string, string>();
  for (const name of new Set(config.handoffs)) {
    const tool = handoffToolName(name);
    const earlier = targets.get(tool);
    if (earlier !== undefined)
      problems.push({
        path: ['handoffs'],
        message: `Duplicate handoff target: '${earlier}' and '${name}' both become the tool '${tool}' on agent '${config.name}'`,
      });
    else targets.set(tool, name);
    if (config.tools.includes(tool))
      problems.push({
        path: ['tools'],
        message: `Duplicate tool name '${tool}' on agent '${config.name}': the handoff to '${name}' is a tool of that name`,
      });
  }
  return problems;
}

/** Each name that comes again after its first time, once per repetition. */
function repeated(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const again: string[] = [];
  for (const name of names) {
    if (seen.has(name)) again.push(name);
    seen.add(name);
  }
  return again;
}
