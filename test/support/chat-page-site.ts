// The Next.js example's chat as a static page: app/chat.tsx bundled with esbuild, served with the gateway from one loopback origin.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build, stop } from 'esbuild';
import { createGatewayHandler, type GatewayHandler, type GatewayOptions } from '../../src/gateway/gateway-app';

export const NEXTJS_EXAMPLE = path.resolve(__dirname, '..', '..', 'examples', 'nextjs-chat');
/** Where the example's route is mounted (app/api/agents/[...path]): the chat's default `api` is under it. */
export const EXAMPLE_BASE_PATH = '/api/agents';

/** What Next.js would do for the page: render <Chat/> into #root, its props from the page's query. */
const ENTRY = `
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { Chat } from './app/chat';
const query = new URLSearchParams(location.search);
createRoot(document.getElementById('root')).render(
  createElement(Chat, { chatId: query.get('chat'), agent: query.get('agent'), token: query.get('token') }),
);
`;

const PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><title>chat</title></head><body><div id="root"></div><script type="module" src="/chat.js"></script></body></html>';

/** app/chat.tsx and what it imports (React, @ai-sdk/react, ai) as one browser module. */
export async function bundleChatPage(): Promise<string> {
  const result = await build({
    stdin: { contents: ENTRY, resolveDir: NEXTJS_EXAMPLE, loader: 'jsx', sourcefile: 'chat-entry.jsx' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  // esbuild keeps a service process for the next build: none comes, and a test must leave no process behind.
  await stop();
  return result.outputFiles[0]!.text;
}

/** The page's origin: the bundle at /, the gateway under /api/agents, as the Next.js app serves them. */
export interface ChatSite {
  url: string;
  port: number;
  gateway: GatewayHandler;
  /** Drops every open connection (streams break mid-chunk) and stops the gateway: a crashed server. */
  crash(): Promise<void>;
}

/** Serves the page and a new gateway handler on `port` (0: any free one). */
export async function startChatSite(script: string, options: Omit<GatewayOptions, 'basePath'>, port = 0): Promise<ChatSite> {
  const gateway = createGatewayHandler({ ...options, basePath: EXAMPLE_BASE_PATH });
  const server: Server = createServer((request, response) => {
    const url = request.url ?? '/';
    if (url.startsWith(`${EXAMPLE_BASE_PATH}/`)) return void gateway.node(request, response);
    if (url === '/chat.js') return void response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    if (url === '/' || url.startsWith('/?')) return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    response.writeHead(404).end();
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    gateway,
    crash: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.all([closed, gateway.close()]);
    },
  };
}
