import path from 'node:path';
import { DEFAULT_DATA_DIR } from '../devserver/dev-server';
import type { ArtifactStore } from './artifact-store';
import { FolderArtifactStore } from './folder-artifact-store';
import { S3ArtifactStore } from './s3-artifact-store';

/**
 * The artifact store a worker uses unless it is given one: `AGENT_ARTIFACT_STORE=s3://bucket/prefix`
 * (with `AGENT_S3_ENDPOINT` for an S3-compatible server, credentials from the AWS variables) for a
 * cluster, where every worker must read what any of them wrote; otherwise a folder,
 * `AGENT_ARTIFACT_DIR` or `.temporal-data/artifacts` (one machine).
 * @throws Error naming the variable when it is not an `s3://` URL.
 * @example
 * // AGENT_ARTIFACT_STORE=s3://agent-artifacts/prod AGENT_S3_ENDPOINT=http://minio:9000 on every worker
 * const plugin = new AgentPlugin({ tools, artifacts: artifactStoreFromEnvironment() }); // the plugin's default too
 */
export function artifactStoreFromEnvironment(environment: NodeJS.ProcessEnv = process.env): ArtifactStore {
  const url = environment.AGENT_ARTIFACT_STORE;
  if (!url) return new FolderArtifactStore(environment.AGENT_ARTIFACT_DIR ?? path.join(DEFAULT_DATA_DIR, 'artifacts'));
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!match) throw new Error(`AGENT_ARTIFACT_STORE must be an s3://bucket/prefix URL (got '${url}'); unset it to use a folder (AGENT_ARTIFACT_DIR)`);
  const prefix = match[2] ? `${match[2].replace(/\/+$/, '')}/` : '';
  const endpoint = environment.AGENT_S3_ENDPOINT ?? environment.AWS_ENDPOINT_URL_S3 ?? environment.AWS_ENDPOINT_URL;
  return new S3ArtifactStore({ bucket: match[1]!, prefix, ...(endpoint ? { endpoint } : {}) });
}
