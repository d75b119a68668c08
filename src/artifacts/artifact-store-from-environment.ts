import path from 'node:path';
import { DEFAULT_DATA_DIR } from '../devserver/dev-server';
import { AgentConfigError } from '../protocol/errors';
import type { ArtifactStore } from './artifact-store';
import { FolderArtifactStore } from './folder-artifact-store';
import { S3ArtifactStore } from './s3-artifact-store';

/**
 * The artifact store a worker uses unless it is given one: `AGENT_ARTIFACT_STORE=s3://bucket/prefix`
 * (with `AGENT_S3_ENDPOINT` for an S3-compatible server, credentials from the AWS variables) for a
 * cluster, where every worker must read what any of them wrote; otherwise a folder,
 * `AGENT_ARTIFACT_DIR` or `.temporal-data/artifacts` (one machine).
 * @throws AgentConfigError naming the variable when it is not an `s3://` URL.
 * @example
 * // AGENT_ARTIFACT_STORE=s3://agent-artifacts/prod AGENT_S3_ENDPOINT=http://minio:9000 on every worker
 * const plugin = new AgentPlugin({ tools, artifacts: artifactStoreFromEnvironment() }); // the plugin's default too
 */
export function artifactStoreFromEnvironment(environment: NodeJS.ProcessEnv = process.env): ArtifactStore {
  const url = environment.AGENT_ARTIFACT_STORE;
  if (!url) return new FolderArtifactStore(environment.AGENT_ARTIFACT_DIR ?? path.join(DEFAULT_DATA_DIR, 'artifacts'));
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!match) {
    const problem = `AGENT_ARTIFACT_STORE must be an s3://bucket/prefix URL (got '${url}'); unset it to use a folder (AGENT_ARTIFACT_DIR)`;
    throw new AgentConfigError(problem, [problem]);
  }
  const prefix = match[2] ? `${match[2].replace(/\/+$/, '')}/` : '';
  // `||`: compose passes unset variables as empty strings.
  const endpoint = environment.AGENT_S3_ENDPOINT || environment.AWS_ENDPOINT_URL_S3 || environment.AWS_ENDPOINT_URL;
  return new S3ArtifactStore({ bucket: match[1]!, prefix, ...(endpoint ? { endpoint } : {}) });
}

/** The variable that chose the store `artifactStoreFromEnvironment` returns, as errors name it. */
export function artifactStoreSource(environment: NodeJS.ProcessEnv = process.env): string {
  if (environment.AGENT_ARTIFACT_STORE) return 'AGENT_ARTIFACT_STORE';
  return environment.AGENT_ARTIFACT_DIR ? 'AGENT_ARTIFACT_DIR' : 'the default folder; AGENT_ARTIFACT_DIR sets another';
}
