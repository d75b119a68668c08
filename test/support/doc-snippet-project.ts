// The README's and docs' code blocks written out as a project of their own inside the consumer project, and the loopback payment service its refund tool calls.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { CONSUMER_TEMPLATE, REPO_ROOT } from './consumer-project';
import { docSnippets, type DocSnippet } from './doc-snippets';

/**
 * Writes every named block of README.md and docs/*.md into `folder` (inside the consumer project,
 * whose node_modules has the packed package), as the reader would: an ES module project
 * (`"type": "module"`) with the template's tsconfig, the one `tsc --init` writes.
 */
export function writeSnippetProject(folder: string): DocSnippet[] {
  const { snippets, unnamed } = docSnippets(REPO_ROOT);
  if (unnamed.length > 0) throw new Error(`code blocks that name no file: ${unnamed.map((block) => block.origin).join(', ')}`);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'package.json'), `${JSON.stringify({ name: 'docs-snippets', private: true, type: 'module' }, null, 2)}\n`);
  copyFileSync(path.join(CONSUMER_TEMPLATE, 'tsconfig.json'), path.join(folder, 'tsconfig.json'));
  for (const snippet of snippets) {
    mkdirSync(path.dirname(path.join(folder, snippet.file)), { recursive: true });
    writeFileSync(path.join(folder, snippet.file), snippet.code);
  }
  return snippets;
}

export interface PaymentService {
  url: string;
  refunds: Array<{ idempotencyKey: string | undefined; body: unknown }>;
  close(): Promise<void>;
}

/** The payment service of the README's `refund` tool, on loopback: it records each refund and its idempotency key. */
export async function startPaymentService(): Promise<PaymentService> {
  const refunds: PaymentService['refunds'] = [];
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/refunds') {
        response.writeHead(404).end();
        return;
      }
      const key = request.headers['idempotency-key'];
      refunds.push({ idempotencyKey: typeof key === 'string' ? key : undefined, body: JSON.parse(text) });
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ refunded: true, refundId: `refund-${refunds.length}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    refunds,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
