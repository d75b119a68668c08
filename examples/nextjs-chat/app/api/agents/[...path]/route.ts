// The gateway mounted in a Next.js route handler: every /api/agents/v1/... request (chat, its resume, approvals) reaches it.
import { AgentClient } from 'durable-agents';
import { createGatewayHandler, readGatewayAccess, type GatewayHandler } from 'durable-agents/gateway';

/** Where this route is mounted: the gateway's own routes (/v1/..., /openapi.json) live under it. */
const BASE_PATH = '/api/agents';

let gateway: Promise<GatewayHandler> | undefined;

/**
 * One gateway per server process, made on the first request (not at import: `next build` loads
 * route files without a Temporal server). The Temporal address comes from TEMPORAL_ADDRESS and
 * friends; the keys from the access file GATEWAY_ACCESS names (docs/gateway.md, "Access file").
 */
function gatewayHandler(): Promise<GatewayHandler> {
  gateway ??= AgentClient.connect().then((agents) =>
    createGatewayHandler({
      agents,
      access: readGatewayAccess(process.env.GATEWAY_ACCESS ?? 'gateway-access.yaml'),
      basePath: BASE_PATH,
    }),
  );
  return gateway;
}

// Streams stay open for a whole turn: never cache or pre-render this route.
export const dynamic = 'force-dynamic';

export async function GET(request: Request): Promise<Response> {
  return (await gatewayHandler()).fetch(request);
}

export async function POST(request: Request): Promise<Response> {
  return (await gatewayHandler()).fetch(request);
}
