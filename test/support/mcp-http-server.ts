/**
 * A real MCP server process speaking streamable HTTP on loopback (stateless: a server per request),
 * for the tests. Prints its URL on stdout once it listens.
 */
import http from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { buildTestMcpServer } from './mcp-test-tools';

const httpServer = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString()) as unknown) : undefined;
    const server = buildTestMcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(request, response, body));
  });
});

httpServer.listen(0, '127.0.0.1', () => {
  const address = httpServer.address();
  if (address && typeof address === 'object') process.stdout.write(`http://127.0.0.1:${address.port}/mcp\n`);
});
