// Who may call the gateway and do what: API keys (stored hashed) or JWT settings, scopes, agent rules and request limits, read from an access file.
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import type { ApproverRule } from '../console/console-access';
import { isLoopbackHost, readAccessFile } from '../console/console-access';
import { AgentConfigError } from '../protocol/errors';
import { jwtSettingsSchema, type GatewayJwtSettings } from './gateway-jwt-settings';
import { rateLimitSchema, type RateLimit } from './gateway-rate-limit';

/** What a key may do: start (and cancel) runs, send to threads (and inject), read, decide approvals; admin is all of them. */
export const GATEWAY_SCOPES = ['start', 'send', 'read', 'approve', 'admin'] as const;
/** One of `GATEWAY_SCOPES`: what a key may do. */
export type GatewayScope = (typeof GATEWAY_SCOPES)[number];

/** One API key, as the access file holds it: never the key itself, only its SHA-256. */
export interface GatewayKey {
  /** Who calls with this key: the decider of the approvals it decides. */
  principal: string;
  /** Lowercase hex SHA-256 of the key's UTF-8 bytes (`durable-agents gateway hash-key`). */
  sha256: string;
  scopes: GatewayScope[];
  /** Agent name globs the key may act on (`support`, `billing-*`); absent: every agent. */
  agents?: string[];
  /** This key's request limit (default: the access file's `rate_limit`). */
  rateLimit?: RateLimit;
}

/** The gateway's access settings (docs/gateway.md, "Access file"). */
export interface GatewayAccess {
  keys?: GatewayKey[];
  /** Who may decide which tools, as the console's `approvers` (tool globs → principal globs). */
  approvers?: ApproverRule[];
  /** Browser origins allowed to call the gateway (CORS). Default: none. */
  allowedOrigins?: string[];
  /** JWT bearer tokens accepted besides the keys: issuer, audience, key source, claims. */
  jwt?: GatewayJwtSettings;
  /** The request limit of every key and token principal without its own. Default: none. */
  rateLimit?: RateLimit;
  /** Put request bodies (message text) in the request log. Default: off. */
  logBodies?: boolean;
}

const keySchema = z
  .object({
    principal: z.string().trim().min(1).max(200),
    sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, "must be the 64 hex digits of the key's SHA-256 (durable-agents gateway hash-key)")
      .transform((hash) => hash.toLowerCase()),
    scopes: z.array(z.enum(GATEWAY_SCOPES)).min(1),
    agents: z.array(z.string().min(1)).min(1).optional(),
    rate_limit: rateLimitSchema.optional(),
  })
  .strict()
  .transform(({ rate_limit: rateLimit, ...key }): GatewayKey => ({ ...key, ...(rateLimit ? { rateLimit } : {}) }));

const accessFileSchema = z
  .object({
    keys: z.array(keySchema).optional(),
    approvers: z.array(z.object({ tools: z.array(z.string().min(1)).min(1), identities: z.array(z.string().min(1)).min(1) }).strict()).optional(),
    allowed_origins: z.array(z.string().regex(/^https?:\/\/[^/\s]+$/, 'must be an origin: scheme://host[:port], no path')).optional(),
    jwt: jwtSettingsSchema.optional(),
    rate_limit: rateLimitSchema.optional(),
    log_bodies: z.boolean().optional(),
  })
  .strict();

/**
 * Checks the parsed content of an access file (`source` names it in errors).
 * @throws AgentConfigError naming the source and each invalid field (a key hash listed twice too).
 */
export function parseGatewayAccess(raw: unknown, source: string): GatewayAccess {
  const parsed = accessFileSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${source}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new AgentConfigError(`Invalid gateway access file:\n${problems.join('\n')}`, problems);
  }
  const { keys, approvers, allowed_origins: allowedOrigins, jwt, rate_limit: rateLimit, log_bodies: logBodies } = parsed.data;
  const seen = new Map<string, number>();
  keys?.forEach((key, index) => {
    const earlier = seen.get(key.sha256);
    if (earlier !== undefined) {
      const problem = `${source}: keys.${index}.sha256: the same key as keys.${earlier} (one key, one principal)`;
      throw new AgentConfigError(`Invalid gateway access file:\n${problem}`, [problem]);
    }
    seen.set(key.sha256, index);
  });
  return {
    ...(keys ? { keys } : {}),
    ...(approvers ? { approvers } : {}),
    ...(allowedOrigins ? { allowedOrigins } : {}),
    ...(jwt ? { jwt } : {}),
    ...(rateLimit ? { rateLimit } : {}),
    ...(logBodies !== undefined ? { logBodies } : {}),
  };
}

/**
 * Reads a gateway access file (YAML or JSON: `keys`, `approvers`, `allowed_origins`, `jwt`,
 * `rate_limit`, `log_bodies`). A relative `jwt.public_key_file` is read from the file's folder.
 * @throws AgentConfigError naming the file and each invalid field.
 * @example
 * import { AgentClient } from 'durable-agents';
 * import { readGatewayAccess, startGateway } from 'durable-agents/gateway';
 *
 * await startGateway({ agents: await AgentClient.connect(), host: '0.0.0.0', access: readGatewayAccess('gateway-access.yaml') });
 */
export function readGatewayAccess(file: string): GatewayAccess {
  const access = parseGatewayAccess(readAccessFile(file, 'gateway'), file);
  const source = access.jwt?.keySource;
  if (source?.kind === 'publicKeyFile') source.file = path.resolve(path.dirname(file), source.file);
  return access;
}

/**
 * The lowercase hex SHA-256 of a key: what the access file stores for it (the key itself is never stored).
 * @example
 * import { hashGatewayKey } from 'durable-agents/gateway';
 *
 * console.log(`sha256: ${hashGatewayKey(process.env.NEW_API_KEY!)}`);
 */
export function hashGatewayKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new random API key (32 bytes, base64url) and its hash, for `durable-agents gateway hash-key`. */
export function newGatewayKey(): { key: string; sha256: string } {
  const key = `dak_${randomBytes(32).toString('base64url')}`;
  return { key, sha256: hashGatewayKey(key) };
}

/** Whether `access` asks callers who they are: API keys, JWT settings, or both. */
export function gatewayChecksCallers(access: GatewayAccess): boolean {
  return (access.keys?.length ?? 0) > 0 || access.jwt !== undefined;
}

/**
 * Refuses settings that would open the gateway to the network without keys.
 * @throws AgentConfigError when `host` is not loopback and `access` has neither keys nor JWT settings.
 */
export function assertGatewayAccessFitsHost(host: string, access: GatewayAccess): void {
  if (isLoopbackHost(host) || gatewayChecksCallers(access)) return;
  const problem = `host: ${host} is reachable from other machines; give API keys or jwt settings (--access <file>), or bind to 127.0.0.1`;
  throw new AgentConfigError(`The gateway refuses to start without API keys: ${problem}`, [problem]);
}
