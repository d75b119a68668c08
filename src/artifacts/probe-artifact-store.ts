// Checks at worker start that the artifact store can write and read back, so a misconfigured store stops the worker, not a run.
import { AgentRuntimeError, ErrorCode } from '../protocol/errors';
import type { ArtifactStore } from './artifact-store';

/**
 * What a worker writes and reads back at start. Always the same text: stores name objects by their
 * content's hash, so every start of every worker rewrites one small object instead of adding one.
 */
export const ARTIFACT_STORE_PROBE = 'durable-agents: workers write and read back this object when they start, to check the artifact store.\n';

/**
 * A worker's artifact store that cannot write or read back: the worker does not start (the CLI
 * exits 2). The message names the store and the fix; without this check, the first large tool
 * result or long-run snapshot would fail, and be retried, for as long as the run lives.
 * @example
 * import { probeArtifactStore, ArtifactStoreUnavailableError } from 'durable-agents/worker';
 *
 * try {
 *   await probeArtifactStore(artifacts);
 * } catch (error) {
 *   if (error instanceof ArtifactStoreUnavailableError) console.error(error.message);
 *   throw error;
 * }
 */
export class ArtifactStoreUnavailableError extends AgentRuntimeError {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(ErrorCode.artifactStoreUnavailable, message);
  }
}

/**
 * Writes {@link ARTIFACT_STORE_PROBE} to the store and reads it back. `AgentPlugin` calls it before
 * the worker polls (`createAgentWorker`, and so `durable-agents worker`, before it even creates the
 * worker); call it yourself to check a store elsewhere, for example in a deploy step.
 * @param source Where the store was configured, named in the error (for example the variable).
 * @throws ArtifactStoreUnavailableError naming the store, what failed and how to fix it.
 * @example
 * import { FolderArtifactStore, probeArtifactStore } from 'durable-agents/worker';
 *
 * const artifacts = new FolderArtifactStore('/var/lib/agents/artifacts');
 * await probeArtifactStore(artifacts); // throws if this process cannot write there
 */
export async function probeArtifactStore(store: ArtifactStore, source?: string): Promise<void> {
  const name = `${describeStore(store)}${source ? ` (${source})` : ''}`;
  let stage = 'write to';
  try {
    const id = await store.put(ARTIFACT_STORE_PROBE, { workflowId: 'durable-agents-probe', toolName: 'probe', callId: 'probe' });
    stage = 'read back from';
    const { content } = await store.read(id);
    if (content !== ARTIFACT_STORE_PROBE) {
      throw new ArtifactStoreUnavailableError(
        `The worker's artifact store ${name} returned other content than it was given (${content.length} characters for ${ARTIFACT_STORE_PROBE.length}).`,
      );
    }
  } catch (error) {
    if (error instanceof ArtifactStoreUnavailableError) throw error;
    const reason = (error instanceof Error ? error.message : String(error)).replace(/[.\s]+$/, '');
    throw new ArtifactStoreUnavailableError(`The worker cannot ${stage} its artifact store ${name}: ${reason}. ${fixFor(error)}`, error);
  }
}

/** The store as a person knows it: its own `toString()` (the built-in stores have one), else its class. */
function describeStore(store: ArtifactStore): string {
  const text = String(store);
  return text === '[object Object]' ? (store.constructor?.name ?? 'ArtifactStore') : text;
}

const CREDENTIAL_ERRORS = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'AccessDenied',
  'CredentialsProviderError',
  'ExpiredToken',
  'InvalidToken',
  'Forbidden',
]);
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH']);
const FOLDER_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'ENOTDIR', 'EEXIST']);

/** What to do about a failure, from the error's name or code (the AWS SDK's and Node's). */
function fixFor(error: unknown): string {
  const { name, code, message } = (error ?? {}) as { name?: string; code?: string; message?: string };
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  if (message?.includes('@aws-sdk/client-s3')) {
    return 'Install it next to durable-agents (npm install @aws-sdk/client-s3; the worker image of the Dockerfile has it), or unset AGENT_ARTIFACT_STORE to use a folder.';
  }
  if (name === 'NoSuchBucket')
    return 'Create the bucket (for example `aws s3 mb s3://<bucket>` with --endpoint-url for an S3-compatible server), or correct AGENT_ARTIFACT_STORE.';
  if ((name && CREDENTIAL_ERRORS.has(name)) || status === 401 || status === 403) {
    return 'Give the worker credentials that may write and read the bucket: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE, or an instance role).';
  }
  const errorCode = code ?? (error as { cause?: { code?: string } } | null)?.cause?.code;
  if (errorCode && UNREACHABLE_CODES.has(errorCode))
    return 'No server answered: check AGENT_S3_ENDPOINT (or AWS_ENDPOINT_URL_S3) and that the server is up.';
  if (errorCode && FOLDER_CODES.has(errorCode))
    return 'Use a folder this process may create and write (AGENT_ARTIFACT_DIR), shared by every worker of the task queue.';
  return 'Check the store settings (AGENT_ARTIFACT_STORE, AGENT_S3_ENDPOINT, AGENT_ARTIFACT_DIR) in docs/deployment.md.';
}
