/**
 * MCP tool names are namespaced by server (`<server>__<tool>`) so tools of different servers, and
 * the worker's own tools, never clash. Pure: shared by the workflow and the activities.
 */
const SEPARATOR = '__';

export function mcpToolName(server: string, tool: string): string {
  return `${server}${SEPARATOR}${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

export function splitMcpToolName(name: string): { server: string; tool: string } | null {
  const at = name.indexOf(SEPARATOR);
  return at > 0 ? { server: name.slice(0, at), tool: name.slice(at + SEPARATOR.length) } : null;
}
