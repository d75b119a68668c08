// The access file's `jwt` section: which tokens the gateway accepts, where their keys come from, and which claims say who and what.
import { z } from 'zod';
import { isLoopbackHost } from '../console/console-access';
import { rateLimitSchema, type RateLimit } from './gateway-rate-limit';

/** Signing algorithms with a shared secret (`secret_env`). */
export const SECRET_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const;
/** Signing algorithms with a public key (`jwks_url`, `public_key_file`). */
export const PUBLIC_KEY_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;

/** Where the keys that check a token's signature come from: exactly one per access file. */
export type JwtKeySource =
  /** A JSON Web Key Set fetched (and cached, refetched for an unknown `kid`) from an identity provider. */
  | { kind: 'jwks'; url: string }
  /** A PEM public key (SPKI) in a file; a relative path is read from the access file's folder. */
  | { kind: 'publicKeyFile'; file: string }
  /** An HMAC secret in the environment variable `variable` (never in the file itself). */
  | { kind: 'secretEnv'; variable: string };

/** The gateway's JWT settings (docs/gateway.md, "JWT"), as `parseGatewayAccess` returns them. */
export interface GatewayJwtSettings {
  /** A token's `iss` must be one of these. */
  issuer: string[];
  /** A token's `aud` must hold one of these. */
  audience: string[];
  keySource: JwtKeySource;
  /** The algorithms accepted (default: HS256 with a secret, every public-key algorithm otherwise). */
  algorithms: string[];
  /** The claim naming the principal (default `sub`). */
  principalClaim: string;
  /** The claim holding the scopes, space-separated or an array (default `scope`). */
  scopesClaim: string;
  /**
   * The claim holding agent name globs (`["*"]`: every agent). A token without it may use no
   * agent: an identity provider that forgot the claim must not open every agent. Not set: every
   * token may use every agent, as a key without `agents`.
   */
  agentsClaim?: string;
  /** Seconds of clock skew allowed on `exp` and `nbf` (default 30). */
  clockToleranceSeconds: number;
  /** The request limit of each token principal (default: the access file's `rate_limit`). */
  rateLimit?: RateLimit;
}

const names = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).transform((value) => (Array.isArray(value) ? value : [value]));
const claimName = z.string().min(1).max(200);

/** `jwt` in the access file (snake_case like the rest of it). */
export const jwtSettingsSchema = z
  .object({
    issuer: names,
    audience: names,
    jwks_url: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .refine((url) => url.startsWith('https:') || isLoopbackHost(new URL(url).hostname), 'must be https (http only on a loopback address)')
      .optional(),
    public_key_file: z.string().min(1).optional(),
    secret_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the name of an environment variable holding the secret')
      .optional(),
    // A secret written into the file is refused by name, so the message says where it goes instead.
    secret: z.never({ error: 'never put the secret in the file: name the environment variable holding it in secret_env' }).optional(),
    algorithms: z
      .array(z.enum([...SECRET_ALGORITHMS, ...PUBLIC_KEY_ALGORITHMS]))
      .min(1)
      .optional(),
    principal_claim: claimName.default('sub'),
    scopes_claim: claimName.default('scope'),
    agents_claim: claimName.optional(),
    clock_tolerance_seconds: z.number().int().min(0).max(3_600).default(30),
    rate_limit: rateLimitSchema.optional(),
  })
  .strict()
  .superRefine((settings, context) => {
    const sources = (['jwks_url', 'public_key_file', 'secret_env'] as const).filter((field) => settings[field] !== undefined);
    if (sources.length !== 1)
      context.addIssue({
        code: 'custom',
        path: sources.length === 0 ? [] : [sources[1]!],
        message:
          sources.length === 0
            ? 'needs where the token keys come from: jwks_url, public_key_file or secret_env'
            : `give one key source, not ${sources.join(' and ')}`,
      });
    const secret = settings.secret_env !== undefined;
    settings.algorithms?.forEach((algorithm, index) => {
      if ((SECRET_ALGORITHMS as readonly string[]).includes(algorithm) !== secret)
        context.addIssue({
          code: 'custom',
          path: ['algorithms', index],
          message: secret ? `${algorithm} needs a public key, not secret_env` : `${algorithm} needs a shared secret (secret_env)`,
        });
    });
  })
  .transform((settings): GatewayJwtSettings => {
    const keySource: JwtKeySource =
      settings.jwks_url !== undefined
        ? { kind: 'jwks', url: settings.jwks_url }
        : settings.public_key_file !== undefined
          ? { kind: 'publicKeyFile', file: settings.public_key_file }
          : { kind: 'secretEnv', variable: settings.secret_env! };
    return {
      issuer: settings.issuer,
      audience: settings.audience,
      keySource,
      algorithms: settings.algorithms ?? (keySource.kind === 'secretEnv' ? ['HS256'] : [...PUBLIC_KEY_ALGORITHMS]),
      principalClaim: settings.principal_claim,
      scopesClaim: settings.scopes_claim,
      ...(settings.agents_claim !== undefined ? { agentsClaim: settings.agents_claim } : {}),
      clockToleranceSeconds: settings.clock_tolerance_seconds,
      ...(settings.rate_limit ? { rateLimit: settings.rate_limit } : {}),
    };
  });
