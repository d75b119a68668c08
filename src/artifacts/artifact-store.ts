/**
 * Where large tool results go instead of the history. A folder by default; an S3-like store can
 * implement the same interface. Ids are opaque strings safe in file names and URLs.
 */
export interface ArtifactStore {
  /** Stores content and returns its id. Storing the same content twice may return the same id. */
  put(content: string, meta: { workflowId: string; toolName: string; callId: string }): Promise<string>;
  /** A slice of the content (characters), or the whole of it. @throws ArtifactNotFoundError */
  read(id: string, offset?: number, length?: number): Promise<{ content: string; totalLength: number }>;
}

export class ArtifactNotFoundError extends Error {
  override name = 'ArtifactNotFoundError';
}
