// Who is asking: a request's identity (token, cookie, trusted proxy header or the local user), and its CSRF token.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { ConsoleAccess } from './console-access';

const SESSION_COOKIE = 'durable_agents_console';
const SESSION_HOURS = 12;

/**
 * Signs people in and tells who a request comes from. A session cookie holds a hash of the token
 * it was opened with (never the token), signed with a per-process secret, so removing a token
 * from the access file ends its sessions at the next restart, and a stolen cookie stops working
 * when the console restarts. CSRF tokens are an HMAC of the identity: nothing to store.
 */
export class ConsoleSessions {
  private readonly identityByTokenHash: Map<string, string>;

  constructor(
    private readonly access: ConsoleAccess,
    /** The identity of everyone when no sign-in is configured (a loopback console: the OS user). */
    private readonly localIdentity: string,
    private readonly secret: Buffer = randomBytes(32),
  ) {
    this.identityByTokenHash = new Map((access.tokens ?? []).map(({ token, identity }) => [sha256(token), identity]));
  }

  /** Whether people sign in (tokens or a trusted header), rather than everyone being the local user. */
  get signInRequired(): boolean {
    return this.identityByTokenHash.size > 0 || this.access.trustedHeader !== undefined;
  }

  /** Whether the login page can sign anyone in (tokens are configured). */
  get acceptsTokens(): boolean {
    return this.identityByTokenHash.size > 0;
  }

  /** The identity the request is signed in as, or null. */
  identify(context: Context): string | null {
    if (!this.signInRequired) return this.localIdentity;
    if (this.access.trustedHeader) {
      const fromProxy = context.req.header(this.access.trustedHeader)?.trim();
      if (fromProxy) return fromProxy;
    }
    const bearer = /^Bearer\s+(\S+)$/i.exec(context.req.header('authorization') ?? '')?.[1];
    if (bearer) return this.identityByTokenHash.get(sha256(bearer)) ?? null;
    const cookie = getCookie(context, SESSION_COOKIE);
    if (!cookie) return null;
    const [tokenHash, expires, signature] = cookie.split('.');
    if (!tokenHash || !expires || !signature || !this.sameSignature(signature, `${tokenHash}.${expires}`)) return null;
    if (Number(expires) < Date.now()) return null;
    return this.identityByTokenHash.get(tokenHash) ?? null;
  }

  /** Opens a session for `token`: the identity it signs in as, or null (an unknown token; no cookie is set). */
  signIn(context: Context, token: string): string | null {
    const tokenHash = sha256(token.trim());
    const identity = this.identityByTokenHash.get(tokenHash);
    if (!identity) return null;
    const payload = `${tokenHash}.${Date.now() + SESSION_HOURS * 3_600_000}`;
    setCookie(context, SESSION_COOKIE, `${payload}.${this.sign(payload)}`, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      secure: new URL(context.req.url).protocol === 'https:',
      maxAge: SESSION_HOURS * 3_600,
    });
    return identity;
  }

  signOut(context: Context): void {
    deleteCookie(context, SESSION_COOKIE, { path: '/' });
  }

  /** The CSRF token every action of `identity` must carry (a form field or the `X-CSRF-Token` header). */
  csrfToken(identity: string): string {
    return this.sign(`csrf:${identity}`);
  }

  /** Whether `token` is `identity`'s CSRF token. */
  validCsrf(identity: string, token: string | undefined): boolean {
    return token !== undefined && this.sameSignature(token, `csrf:${identity}`);
  }

  private sign(value: string): string {
    return createHmac('sha256', this.secret).update(value).digest('base64url');
  }

  private sameSignature(signature: string, value: string): boolean {
    const expected = Buffer.from(this.sign(value));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
