// The Ed25519 keys of verified decisions: issuers' private keys and workers' public keys, from files or the environment, each known by a key id.
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AgentConfigError } from '../protocol/errors';

/** A private key that signs decision proofs, with the id workers know its public key by. */
export interface DecisionSigningKey {
  keyId: string;
  privateKey: KeyObject;
}

/** The public keys a worker verifies decision proofs with, by key id. */
export type DecisionPublicKeys = ReadonlyMap<string, KeyObject>;

/** Where an issuer's private key comes from when no `--decision-key` file is given: the PEM text itself. */
export const DECISION_KEY_VARIABLE = 'DURABLE_AGENTS_DECISION_KEY';

/** Where a worker's public keys come from when no option names them: PEM file paths, separated by commas. */
export const DECISION_PUBLIC_KEYS_VARIABLE = 'DURABLE_AGENTS_DECISION_PUBLIC_KEYS';

/** `1` or `true`: the workers run no gated call whose approval was not verified (a deployment-wide rule). */
export const REQUIRE_VERIFIED_DECISIONS_VARIABLE = 'DURABLE_AGENTS_REQUIRE_VERIFIED_DECISIONS';

/**
 * The key id of a public key: the first 16 hex digits of the SHA-256 of its DER (SPKI) encoding.
 * Derived, not configured, so an issuer and a worker agree on it without a setting to keep in step;
 * a rotation adds the new public key to the workers, then moves the issuers to the new private key.
 */
export function decisionKeyId(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);
}

/**
 * A signing key from PEM text (PKCS#8, as `openssl genpkey -algorithm ed25519` writes it).
 * @throws AgentConfigError naming `source` when the text is not an Ed25519 private key.
 */
export function decisionSigningKeyFromPem(pem: string, source: string): DecisionSigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch {
    // The parser's message may quote the input: never show it, a key must not reach a log.
    throw keyError(`${source}: not a PEM private key (make one with \`openssl genpkey -algorithm ed25519 -out decision-key.pem\`)`);
  }
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw keyError(`${source}: an ${privateKey.asymmetricKeyType ?? 'unknown'} key; decision proofs need an Ed25519 key`);
  return { keyId: decisionKeyId(createPublicKey(privateKey)), privateKey };
}

/**
 * The signing key of an issuer (gateway, console, your own server): the PEM file `file`, or else the
 * PEM text in `DURABLE_AGENTS_DECISION_KEY`; null when neither is set.
 * @throws AgentConfigError naming the file or the variable when it is unreadable or not an Ed25519 private key.
 * @example
 * import { readDecisionSigningKey } from 'durable-agents';
 *
 * const key = readDecisionSigningKey('/etc/agents/decision-key.pem'); // { keyId, privateKey }
 */
export function readDecisionSigningKey(file?: string, environment: NodeJS.ProcessEnv = process.env): DecisionSigningKey | null {
  if (file !== undefined) return decisionSigningKeyFromPem(readKeyFile(file), file);
  const pem = environment[DECISION_KEY_VARIABLE];
  return pem ? decisionSigningKeyFromPem(pem, DECISION_KEY_VARIABLE) : null;
}

/**
 * The public keys of a worker, by key id: the PEM files `files`, or else the files listed in
 * `DURABLE_AGENTS_DECISION_PUBLIC_KEYS` (comma-separated). A file may hold a public key or a private
 * one (its public half is used). Empty when neither names any.
 * @throws AgentConfigError naming the file that is unreadable or not an Ed25519 key.
 * @example
 * import { createAgentWorker, readDecisionPublicKeys } from 'durable-agents/worker';
 *
 * // The old and the new key while issuers move to the new one.
 * const decisionPublicKeys = readDecisionPublicKeys(['keys/decision-2026-01.pub.pem', 'keys/decision-2026-06.pub.pem']);
 * const worker = await createAgentWorker({ connection, tools, decisionPublicKeys });
 */
export function readDecisionPublicKeys(files?: readonly string[], environment: NodeJS.ProcessEnv = process.env): DecisionPublicKeys {
  const listed =
    files ??
    (environment[DECISION_PUBLIC_KEYS_VARIABLE] ?? '')
      .split(',')
      .map((file) => file.trim())
      .filter((file) => file !== '');
  const keys = new Map<string, KeyObject>();
  for (const file of listed) {
    const publicKey = decisionPublicKeyFromPem(readKeyFile(file), file);
    keys.set(decisionKeyId(publicKey), publicKey);
  }
  return keys;
}

/** A public key from PEM text (SPKI, or a private key's public half). @throws AgentConfigError naming `source`. */
export function decisionPublicKeyFromPem(pem: string, source: string): KeyObject {
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey(pem);
  } catch {
    throw keyError(`${source}: not a PEM public key (make one with \`openssl pkey -in decision-key.pem -pubout\`)`);
  }
  if (publicKey.asymmetricKeyType !== 'ed25519')
    throw keyError(`${source}: an ${publicKey.asymmetricKeyType ?? 'unknown'} key; decision proofs need an Ed25519 key`);
  return publicKey;
}

function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw keyError(`${file}: cannot read the decision key file (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** A key problem as a config error (the message names the file or variable, never the key). */
function keyError(message: string): AgentConfigError {
  return new AgentConfigError(message, [message]);
}
