/**
 * The tools of the tests' MCP servers, built with the official SDK: `shout`, `count` (reports
 * progress), `fail` (an error result), `crash` (the process exits mid-call) and `arguments`
 * (answers with the arguments it received, every one: its schema lets unknown ones through).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export function buildTestMcpServer(): McpServer {
  const server = new McpServer({ name: 'test-server', version: '1.0.0' });

  server.registerTool('shout', { description: 'Upper-cases text.', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text: text.toUpperCase() }],
  }));

  server.registerTool(
    'count',
    {
      description: 'Counts to n, reporting progress.',
      inputSchema: { n: z.number().int().min(1).max(20), pause_ms: z.number().int().min(0).max(2_000).optional() },
    },
    async ({ n, pause_ms }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let done = 1; done <= n; done++) {
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: done, total: n, message: `counted ${done}` },
          });
        }
        await new Promise((resolve) => setTimeout(resolve, pause_ms ?? 20));
      }
      return { content: [{ type: 'text', text: `counted to ${n}` }] };
    },
  );

  server.registerTool('fail', { description: 'Always fails.', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: 'the disk is full' }],
    isError: true,
  }));

  server.registerTool(
    'arguments',
    { description: 'Answers with the arguments it received, as JSON.', inputSchema: z.looseObject({ text: z.string() }) },
    async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
  );

  server.registerTool('crash', { description: 'Exits the server process.', inputSchema: {} }, async () => {
    process.exit(3);
  });
  return server;
}
