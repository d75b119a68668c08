// Which webhook URLs a push config may name: http(s) only, and no host on a private or link-local network unless the server allows it (SSRF).
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { A2A_PUSH_LIMITS } from '../protocol/a2a-push';

/** The server's rules for webhook hosts. */
export interface PushUrlRules {
  /** Host names (exact, case-insensitive) taken whatever they resolve to: a webhook on your own network. */
  allowedHosts?: readonly string[];
  /** Loopback addresses are taken: by default only when the gateway itself listens on loopback (a developer's machine). */
  allowLoopback?: boolean;
}

/** Addresses no webhook may resolve to: private, shared, link-local, unique-local, multicast, unspecified, reserved. */
const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  refused.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  refused.addSubnet(network, prefix, 'ipv6');
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addSubnet('::1', 128, 'ipv6');

/** Why `address` may not be posted to under `rules`, or null. IPv4-mapped IPv6 addresses are judged as their IPv4 address. */
export function refusedAddress(address: string, rules: PushUrlRules): string | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const plain = mapped ?? address;
  const family = isIP(plain) === 6 ? 'ipv6' : 'ipv4';
  if (loopback.check(plain, family)) return rules.allowLoopback ? null : 'a loopback address';
  if (refused.check(plain, family)) return 'a private, link-local or reserved address';
  return null;
}

/**
 * Checks a webhook URL: an absolute http(s) URL of bounded length whose host is allowed by name, or
 * resolves only to addresses `refusedAddress` takes (every address is checked: a name with one
 * private address is refused).
 * @throws RequestMalformedError (-32602 invalid params) naming the field and why; nothing is stored then.
 */
export async function checkPushUrl(field: string, url: string, rules: PushUrlRules): Promise<void> {
  if (typeof url !== 'string' || url === '') throw new RequestMalformedError(`${field}: required`);
  if (url.length > A2A_PUSH_LIMITS.maxUrlLength)
    throw new RequestMalformedError(`${field}: ${url.length} characters; at most ${A2A_PUSH_LIMITS.maxUrlLength}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RequestMalformedError(`${field}: not an absolute URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new RequestMalformedError(`${field}: a webhook is an http or https URL, not ${parsed.protocol}`);
  if (parsed.username || parsed.password) throw new RequestMalformedError(`${field}: give credentials in authentication, not in the URL`);
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if ((rules.allowedHosts ?? []).some((allowed) => allowed.toLowerCase() === host)) return;
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      throw new RequestMalformedError(`${field}: host '${host}' does not resolve`);
    }
  }
  for (const address of addresses) {
    const why = refusedAddress(address, rules);
    if (why !== null)
      throw new RequestMalformedError(
        `${field}: host '${host}' is ${why} (${address}); this server posts webhooks only to public hosts, or to hosts its A2A push settings allow`,
      );
  }
}
