// Fingerprints of an agent config, by which a thread refuses messages meant for another agent.
import { createHash } from 'node:crypto';
import type { AgentConfig, AgentConfigInput } from '../config/agent-config';
import { canonicalJson } from '../protocol/recorded-calls';

/**
 * The fingerprint of a config as its caller wrote it: canonical JSON (keys sorted at every level,
 * absent members dropped), hashed. It is taken before parsing on purpose: the parsed config holds
 * the library's defaults too, so a hash of it changes when an upgrade changes a default, and an
 * existing thread would refuse the same caller's next message.
 * @example
 * configHashOf({ name: 'support', model: 'openai:gpt-4o-mini' }) === configHashOf({ model: 'openai:gpt-4o-mini', name: 'support' }); // true
 */
export function configHashOf(given: AgentConfigInput | AgentConfig): string {
  return sha256Prefix(canonicalJson(given));
}

/**
 * The fingerprint threads created before `configHashOf` kept: the hash of the parsed config (skill
 * sources keyed). Messages carry it beside `configHashOf` so that such a thread still accepts them.
 */
export function parsedConfigHashOf(parsed: AgentConfig): string {
  return sha256Prefix(canonicalJson(parsed));
}

function sha256Prefix(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/**
 * The fingerprint of a thread created by an agent's name: messages that name the same agent are
 * its own, whatever version answers them; one with an inline config (or another name) is refused.
 */
export function agentNameHashOf(name: string): string {
  return sha256Prefix(canonicalJson({ agent: name }));
}
