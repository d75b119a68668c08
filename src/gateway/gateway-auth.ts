// Who is calling: the bearer key checked against the access file's hashes, and what that principal may do.
import { createHash, timingSafeEqual } from 'node:crypto';
import picomatch from 'picomatch';
import { GATEWAY_SCOPES, type GatewayAccess, type GatewayScope } from './gateway-access';
import { GatewayError, GatewayErrorCode } from './gateway-errors';

/** The authenticated caller of one request. */
export interface Principal {
  /** The key's `principal`: the decider of what it decides. */
  name: string;
  scopes: ReadonlySet<GatewayScope>;
  /** Agent name globs it may act on; null: every agent. */
  agents: readonly string[] | null;
}

/** The caller when the gateway has no keys (only allowed on loopback): every scope, every agent. */
export const LOCAL_PRINCIPAL: Principal = { name: 'local', scopes: new Set(GATEWAY_SCOPES), agents: null };

/**
 * The principal of a request's `Authorization: Bearer <key>` header. The key is hashed and
 * compared with every key's hash in constant time (all of them, so the time says nothing about
 * which one nearly matched).
 * @throws GatewayError 401 `Unauthenticated` for a missing, malformed or unknown key.
 */
export function authenticate(header: string | undefined, access: GatewayAccess): Principal {
  const keys = access.keys ?? [];
  if (keys.length === 0) return LOCAL_PRINCIPAL;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match)
    throw new GatewayError(401, GatewayErrorCode.unauthenticated, 'Send an API key: Authorization: Bearer <key>', { field: 'Authorization' });
  const presented = createHash('sha256').update(match[1]!, 'utf8').digest();
  let found: (typeof keys)[number] | undefined;
  for (const key of keys) {
    if (timingSafeEqual(presented, Buffer.from(key.sha256, 'hex')) && !found) found = key;
  }
  if (!found) throw new GatewayError(401, GatewayErrorCode.unauthenticated, 'Unknown API key', { field: 'Authorization' });
  return { name: found.principal, scopes: new Set(found.scopes), agents: found.agents ?? null };
}

/** @throws GatewayError 403 `Forbidden` naming the scope when the principal lacks it (`admin` has every scope). */
export function requireScope(principal: Principal, scope: GatewayScope): void {
  if (principal.scopes.has(scope) || principal.scopes.has('admin')) return;
  throw new GatewayError(403, GatewayErrorCode.forbidden, `${principal.name} lacks the scope '${scope}' this route needs`, { field: 'scope' });
}

/** Whether the principal may act on agent `name` (a `name@version` counts as its name). */
export function mayUseAgent(principal: Principal, name: string | null): boolean {
  if (principal.agents === null) return true;
  return name !== null && picomatch.isMatch(name.split('@')[0]!, [...principal.agents]);
}

/** @throws GatewayError 403 `Forbidden` naming the agent when the principal's agent rules leave it out. */
export function requireAgent(principal: Principal, name: string | null): void {
  if (mayUseAgent(principal, name)) return;
  throw new GatewayError(403, GatewayErrorCode.forbidden, `${principal.name} may not use agent '${name ?? '(unknown)'}'`, { field: 'agent' });
}
