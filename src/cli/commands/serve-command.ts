// `serve`: the HTTP gateway (JSON API over runs, threads and approvals) on this machine's port, until Ctrl-C; `gateway hash-key` makes a key.
import { pino } from 'pino';
import { AgentClient } from '../../client/agent-client';
import { resolveTemporalTarget } from '../../connection/temporal-target';
import { assertGatewayAccessFitsHost, newGatewayKey, readGatewayAccess } from '../../gateway/gateway-access';
import { createJwtVerifier } from '../../gateway/gateway-jwt';
import { startGateway } from '../../gateway/gateway-server';
import { readDecisionSigningKey } from '../../decisions/decision-keys';
import { readA2aPushKeys } from '../../a2a-push/a2a-push-secrets';
import { waitForInterrupt } from './dev-command';
import { countOption, portOption } from '../port-option';

export interface ServeCommandOptions {
  host?: string;
  port?: string;
  access?: string;
  taskQueue?: string;
  /** A PEM file with the Ed25519 private key decisions' proofs are signed with (default: DURABLE_AGENTS_DECISION_KEY). */
  decisionKey?: string;
  /** Print one JSON line per request (method, route, status, principal, duration, ids; never a body). */
  requestLog?: boolean;
  /** Put request bodies (message text) in those lines too; implies `requestLog`. */
  logBodies?: boolean;
  /** Serve the MCP server at /mcp (commander's `--no-mcp` sets false). Default: on. */
  mcp?: boolean;
  /** Comma-separated agents the MCP server offers (default: every agent whose `expose` allows `mcp`). */
  mcpAgents?: string;
  /** Named agents to serve over A2A too (`--a2a support,billing`), at `/a2a/<agent>` (docs/interop.md). */
  a2a?: string;
  /** The most streams this process holds open (`--max-streams`). */
  maxStreams?: string;
  /** The most streams one principal holds open on this process (`--max-streams-per-principal`). */
  maxStreamsPerPrincipal?: string;
  /** A2A push notifications: the key file sealing webhook secrets (default: DURABLE_AGENTS_A2A_PUSH_KEY; neither: push is off). */
  a2aPushKey?: string;
  /** A2A push notifications: webhook hosts taken even on a private network, comma-separated. */
  a2aPushAllowHosts?: string;
}

/** `serve`: serves the gateway until SIGINT / SIGTERM. Keys, approver rules and CORS origins come from `--access`. */
export async function serveCommand(options: ServeCommandOptions): Promise<void> {
  const port = portOption(options.port, 8787);
  const access = options.access ? readGatewayAccess(options.access) : {};
  const host = options.host ?? '127.0.0.1';
  assertGatewayAccessFitsHost(host, access); // before connecting: a user error needs no server
  if (access.jwt) createJwtVerifier(access.jwt); // the same for a missing token secret variable or PEM file
  const decisionKey = readDecisionSigningKey(options.decisionKey);
  const maxStreams = countOption(options.maxStreams, '--max-streams');
  const maxStreamsPerPrincipal = countOption(options.maxStreamsPerPrincipal, '--max-streams-per-principal');
  const a2aAgents = (options.a2a ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const pushKeys = a2aAgents.length > 0 ? readA2aPushKeys(options.a2aPushKey) : null;
  const allowedHosts = (options.a2aPushAllowHosts ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const agents = await AgentClient.connect(resolveTemporalTarget(), options.taskQueue ? { taskQueue: options.taskQueue } : {});
  // JSON lines on stdout: a request line when asked, internal errors always.
  const logger = pino({ name: 'gateway' }, pino.destination(1));
  try {
    const running = await startGateway({
      agents,
      access,
      ...(decisionKey ? { decisionKey } : {}),
      host,
      port,
      log: (line: string) => {
        if (line.includes(' internal error: ')) logger.error({ detail: line }, 'internal error');
      },
      ...(options.requestLog || options.logBodies ? { requestLog: logger } : {}),
      ...(options.logBodies ? { logBodies: true } : {}),
      mcp: options.mcp === false ? false : { ...(options.mcpAgents ? { exposed: options.mcpAgents.split(',').map((name) => name.trim()) } : {}) },
      ...(a2aAgents.length > 0 ? { a2a: { agents: a2aAgents, ...(pushKeys ? { push: { keys: pushKeys, allowedHosts } } : {}) } } : {}),
      streamLimits: { ...(maxStreams ? { maxStreams } : {}), ...(maxStreamsPerPrincipal ? { maxStreamsPerPrincipal } : {}) },
    });
    const callers = [access.keys?.length ? `${access.keys.length} API key(s)` : '', access.jwt ? 'JWTs' : ''].filter(Boolean).join(' and ');
    const keys = callers || 'no API keys: every caller acts as local';
    const mcp = options.mcp === false ? '' : `; MCP at ${running.url}/mcp`;
    console.log(`Gateway on ${running.url} (${keys}; routes in ${running.url}/openapi.json${mcp}). Press Ctrl-C to stop.`);
    for (const name of a2aAgents)
      console.log(`A2A: ${name} at ${running.url}/a2a/${name} (card: ${running.url}/a2a/${name}/.well-known/agent-card.json)`);
    await waitForInterrupt();
    await running.close();
  } finally {
    await agents.close();
  }
}

/** `gateway hash-key`: a new random API key and the SHA-256 the access file stores for it. */
export function hashKeyCommand(options: { json?: boolean }): void {
  const { key, sha256 } = newGatewayKey();
  if (options.json) return void console.log(JSON.stringify({ key, sha256 }));
  console.log(`key:    ${key}\nsha256: ${sha256}\n\nGive the key to its caller (it is shown once); put the sha256 in the access file:\n`);
  console.log(`keys:\n  - principal: <who calls with it>\n    sha256: ${sha256}\n    scopes: [read]`);
}
