// Who is calling: the bearer key checked against the access file's hashes (or a JWT), within its request limit, and what that principal may do.
import { createHash, timingSafeEqual } from 'node:crypto';
import picomatch from 'picomatch';
import { GATEWAY_SCOPES, gatewayChecksCallers, type GatewayAccess, type GatewayScope } from './gateway-access';
import { GatewayError, GatewayErrorCode } from './gateway-errors';
import { createJwtVerifier, looksLikeJwt } from './gateway-jwt';
import { RateLimiter, type RateLimit } from './gateway-rate-limit';

/** The authenticated caller of one request. */
export interface Principal {
  /** The key's `principal`: the decider of what it decides. */
  name: string;
  scopes: ReadonlySet<GatewayScope>;
  /** Agent name globs it may act on; null: every agent. */
  agents: readonly string[] | null;
  /** What its request limit is counted by: `key:<hash>` (per key), `token:<principal>`, or `local`. */
  caller: string;
  /** Its own request limit (a key's or the JWT settings'); absent: the access file's `rate_limit`. */
  rateLimit?: RateLimit;
}

/** The caller when the gateway has neither keys nor JWT settings (only allowed on loopback): every scope, every agent. */
export const LOCAL_PRINCIPAL: Principal = { name: 'local', scopes: new Set(GATEWAY_SCOPES), agents: null, caller: 'local' };

/** Checks a request's `Authorization` header and takes one request from its caller's limit. */
export type CallerCheck = (header: string | undefined) => Promise<Principal>;

/**
 * The check every route with a scope runs first, before a body is read or Temporal is asked: a
 * JWT-shaped bearer credential is verified as a token (when the access file has `jwt`), anything
 * else looked up as an API key; then the caller's token bucket must hold a request.
 * @throws GatewayError 401 `Unauthenticated` / `TokenExpired`, 429 `RateLimited`, 503 `AuthenticationUnavailable` (JWKS unreachable).
 * @throws AgentConfigError at creation when the JWT key (PEM file, secret variable) is missing.
 */
export function createCallerCheck(access: GatewayAccess, environment: NodeJS.ProcessEnv = process.env): CallerCheck {
  const verifyToken = access.jwt ? createJwtVerifier(access.jwt, environment) : null;
  const limiter = new RateLimiter();
  return async (header) => {
    const credential = gatewayChecksCallers(access) ? bearerCredential(header) : null;
    const principal = verifyToken && credential !== null && looksLikeJwt(credential) ? await verifyToken(credential) : authenticate(header, access);
    const limit = principal.rateLimit ?? access.rateLimit;
    if (limit) limiter.take(principal.caller, limit);
    return principal;
  };
}

/** The credential of `Authorization: Bearer <credential>`. @throws GatewayError 401 `Unauthenticated` when there is none. */
function bearerCredential(header: string | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match)
    throw new GatewayError(401, GatewayErrorCode.unauthenticated, 'Send an API key or token: Authorization: Bearer <key or token>', {
      field: 'Authorization',
    });
  return match[1]!;
}

/**
 * The principal of a request's `Authorization: Bearer <key>` header (API keys only; tokens go
 * through `createCallerCheck`). The key is hashed and
 * compared with every key's hash in constant time (all of them, so the time says nothing about
 * which one nearly matched).
 * @throws GatewayError 401 `Unauthenticated` for a missing, malformed or unknown key.
 */
export function authenticate(header: string | undefined, access: GatewayAccess): Principal {
  if (!gatewayChecksCallers(access)) return LOCAL_PRINCIPAL;
  const keys = access.keys ?? [];
  const presented = createHash('sha256').update(bearerCredential(header), 'utf8').digest();
  let found: (typeof keys)[number] | undefined;
  for (const key of keys) {
    if (timingSafeEqual(presented, Buffer.from(key.sha256, 'hex')) && !found) found = key;
  }
  if (!found) throw new GatewayError(401, GatewayErrorCode.unauthenticated, 'Unknown API key', { field: 'Authorization' });
  return {
    name: found.principal,
    scopes: new Set(found.scopes),
    agents: found.agents ?? null,
    caller: `key:${found.sha256}`,
    ...(found.rateLimit ? { rateLimit: found.rateLimit } : {}),
  };
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
