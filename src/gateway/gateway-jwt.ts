// JWT bearer tokens: checked with jose against the access file's issuer, audience and keys, and read into a principal.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { AgentConfigError } from '../protocol/errors';
import { GATEWAY_SCOPES, type GatewayScope } from './gateway-access';
import type { Principal } from './gateway-auth';
import { GatewayError, GatewayErrorCode } from './gateway-errors';
import type { GatewayJwtSettings } from './gateway-jwt-settings';

/** Checks one token and answers who it names. */
export type JwtVerifier = (token: string) => Promise<Principal>;

/** Whether a bearer credential is shaped as a JWT (three base64url parts); API keys never contain a dot. */
export function looksLikeJwt(credential: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(credential);
}

/**
 * A verifier for `settings`. The keys are loaded now (a PEM file, a secret from the environment),
 * so a missing file or variable stops the gateway at start; a JWKS is fetched on first use and
 * cached by jose (refetched when a token names a key it has not seen).
 * @throws AgentConfigError naming `jwt.public_key_file` or `jwt.secret_env` when the key is missing or unusable.
 */
export function createJwtVerifier(settings: GatewayJwtSettings, environment: NodeJS.ProcessEnv = process.env): JwtVerifier {
  const key = verificationKey(settings, environment);
  const options = {
    issuer: settings.issuer,
    audience: settings.audience,
    algorithms: settings.algorithms,
    clockTolerance: settings.clockToleranceSeconds,
    // A token without an expiry would stay valid for ever once leaked.
    requiredClaims: ['exp'],
  };
  return async (token) => {
    let payload: JWTPayload;
    try {
      // One call per key shape: jose's overloads tell a key from a key resolver.
      ({ payload } = typeof key === 'function' ? await jwtVerify(token, key, options) : await jwtVerify(token, key, options));
    } catch (error) {
      throw tokenRefused(error, settings);
    }
    return principalOf(payload, settings);
  };
}

function verificationKey(settings: GatewayJwtSettings, environment: NodeJS.ProcessEnv): KeyObject | Uint8Array | JWTVerifyGetKey {
  const source = settings.keySource;
  if (source.kind === 'jwks') return createRemoteJWKSet(new URL(source.url), { timeoutDuration: 5_000 });
  if (source.kind === 'publicKeyFile') {
    try {
      return createPublicKey(readFileSync(source.file, 'utf8'));
    } catch (error) {
      throw settingsError(`jwt.public_key_file: cannot read a PEM public key from ${source.file}: ${(error as Error).message}`);
    }
  }
  const secret = environment[source.variable];
  if (!secret) throw settingsError(`jwt.secret_env: the environment variable ${source.variable} is not set (it holds the token secret)`);
  // RFC 7518 3.2: an HMAC key at least as long as its hash; shorter secrets are guessable offline.
  if (Buffer.byteLength(secret, 'utf8') < 32)
    throw settingsError(`jwt.secret_env: the secret in ${source.variable} is shorter than 32 bytes (HS256 needs at least 32)`);
  return new TextEncoder().encode(secret);
}

function settingsError(problem: string): AgentConfigError {
  return new AgentConfigError(`Invalid gateway JWT settings: ${problem}`, [problem]);
}

/** The principal a verified token names: its name claim, its known scopes, and its agent globs when the settings name that claim. */
function principalOf(payload: JWTPayload, settings: GatewayJwtSettings): Principal {
  const name = payload[settings.principalClaim];
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200)
    throw unauthenticated(`The token has no '${settings.principalClaim}' claim naming its principal`);
  // Identity providers put other scopes (openid, email) in the same claim: only ours count.
  const scopes = listClaim(payload[settings.scopesClaim]).filter((scope): scope is GatewayScope =>
    (GATEWAY_SCOPES as readonly string[]).includes(scope),
  );
  const agents = settings.agentsClaim === undefined ? null : listClaim(payload[settings.agentsClaim]);
  return {
    name,
    scopes: new Set(scopes),
    agents,
    caller: `token:${name}`,
    ...(settings.rateLimit ? { rateLimit: settings.rateLimit } : {}),
  };
}

/** A claim holding names: space-separated (OAuth's `scope`) or an array of strings. */
function listClaim(value: unknown): string[] {
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string' && item !== '');
  return [];
}

/** Which check a token failed, as a typed error; the token itself is never quoted. */
function tokenRefused(error: unknown, settings: GatewayJwtSettings): GatewayError {
  const code = (error as { code?: unknown } | null)?.code;
  const claim = (error as { claim?: unknown }).claim;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return new GatewayError(401, GatewayErrorCode.tokenExpired, 'The token has expired (its exp is past): get a new one', {
        field: 'Authorization',
      });
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return unauthenticated(claimProblem(String(claim), String((error as { reason?: unknown }).reason)));
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return unauthenticated('The token failed the signature check');
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return unauthenticated('The token failed the signature check: no key of the JWKS matches its header (kid, alg)');
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return unauthenticated(`The token failed the algorithm check: accepted are ${settings.algorithms.join(', ')}`);
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return unauthenticated('The token is malformed (not a signed JWT with a JSON claims set)');
    default:
      // Anything else comes from fetching the JWKS (a timeout, an HTTP error, a bad document): not the caller's fault.
      if (settings.keySource.kind === 'jwks')
        return new GatewayError(503, GatewayErrorCode.authenticationUnavailable, 'The token keys (jwt.jwks_url) could not be fetched: try again');
      return unauthenticated('The token could not be checked');
  }
}

function claimProblem(claim: string, reason: string): string {
  if (claim === 'iss') return 'The token failed the issuer check (iss is not an accepted issuer)';
  if (claim === 'aud') return 'The token failed the audience check (aud names no accepted audience)';
  if (claim === 'nbf') return 'The token failed the not-before check (nbf is in the future)';
  if (claim === 'exp' && reason === 'missing') return 'The token failed the expiry check: it has no exp claim (tokens must expire)';
  return `The token failed the ${claim} claim check (${reason})`;
}

function unauthenticated(message: string): GatewayError {
  return new GatewayError(401, GatewayErrorCode.unauthenticated, message, { field: 'Authorization' });
}
