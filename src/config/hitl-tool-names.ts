// Which names `hitl_tools` may list: the tools a run of the config can have, not only its `tools`.
import { handoffToolName } from '../protocol/handoff-tool-names';
import { splitMcpToolName } from '../protocol/mcp-tool-names';
import { MEMORY_TOOLS, READ_ARTIFACT_TOOL, SPAWN_PARALLEL_TOOL } from '../protocol/wire-names';

/** The fields of a config that decide which tools its runs have. */
export interface HitlToolsConfig {
  name: string;
  tools: readonly string[];
  hitl_tools: readonly string[];
  dangerous_tools?: readonly string[] | undefined;
  handoffs: readonly string[];
  memory: boolean;
  allow_parallel_subagents: boolean;
  mcp_servers: ReadonlyArray<{ name: string }>;
  skill_sources: readonly string[];
}

/** One refused entry of `hitl_tools`: its path and why. */
export interface HitlToolProblem {
  path: [string, number];
  message: string;
}

/**
 * Why entries of `hitl_tools` name no tool a run of this config can have, or nothing. A run has:
 * its `tools`; `read_artifact` (added once a result is offloaded); `spawn_subagents` with
 * `allow_parallel_subagents`; `remember`, `recall`, `forget` with `memory: true`; `server__tool`
 * for each server of `mcp_servers` (their tool lists are known only at run time, so any tool of a
 * listed server is accepted). With `skill_sources`, any other name is accepted as well: skills
 * bring tools by name at run time, so such a name is checked only then (docs/hitl.md). Handoff tools
 * (`transfer_to_<agent>`) hand the run over and are never gated, so they are refused here.
 */
export function hitlToolProblems(config: HitlToolsConfig): HitlToolProblem[] {
  const problems: HitlToolProblem[] = [];
  // `dangerous_tools` takes the same names: a tool the run cannot have is a typo either way.
  for (const field of ['hitl_tools', 'dangerous_tools'] as const) {
    (config[field] ?? []).forEach((name, index) => {
      const problem = hitlToolProblem(config, name);
      if (problem) problems.push({ path: [field, index], message: problem });
    });
  }
  return problems;
}

function hitlToolProblem(config: HitlToolsConfig, name: string): string | null {
  if (config.tools.includes(name) || name === READ_ARTIFACT_TOOL) return null;
  if (config.handoffs.some((agent) => handoffToolName(agent) === name))
    return `names handoff tool '${name}': a handoff hands the run over and is never gated by an approval (gate a tool of agent '${name.slice('transfer_to_'.length)}' instead)`;
  if (MEMORY_TOOLS.includes(name))
    return config.memory ? null : `names memory tool '${name}', which agent '${config.name}' has only with memory: true`;
  if (name === SPAWN_PARALLEL_TOOL)
    return config.allow_parallel_subagents ? null : `names '${name}', which agent '${config.name}' has only with allow_parallel_subagents: true`;
  const mcp = splitMcpToolName(name);
  if (mcp && config.mcp_servers.some((server) => server.name === mcp.server)) return null;
  if (config.skill_sources.length > 0) return null;
  const servers = config.mcp_servers.map((server) => server.name);
  const mcpHint = mcp ? ` (MCP tools are '<server>__<tool>' with a server of mcp_servers: ${servers.join(', ') || 'none'})` : '';
  return `names tool '${name}', which agent '${config.name}' does not have (its tools: ${config.tools.join(', ') || 'none'})${mcpHint}`;
}
