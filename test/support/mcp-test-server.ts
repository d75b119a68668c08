/** A real MCP server process speaking stdio, for the tests. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildTestMcpServer } from './mcp-test-tools';

void buildTestMcpServer().connect(new StdioServerTransport());
