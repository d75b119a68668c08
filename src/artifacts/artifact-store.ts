/**
 * Where large tool results go instead of the history. A folder by default; an S3-like store can
 * implement the same interface. Ids are opaque strings safe in file names and URLs.
 */
export interface ArtifactStore {
  /** Stores content and returns its id. Storing the same content twice may return the same id. */
  put(content: string, meta: { workflowId: string; toolName: string; callId: string }): Promise<string>;
  /** A slice of the content (characters), or the whole of it. @throws ArtifactNotFoundError */
  read(id: string, offset?: number, length?: number): Promise<{ content: string; totalLength: number }>;
  /**
   * Deletes an artifact: true when it was there, false when it was not (idempotent). Used to delete
   * a thread's stored data (`ThreadHandle.delete`, "forget this user"); a store without it cannot
   * take part in those deletions.
   */
  delete?(id: string): Promise<boolean>;
}

/**
 * No artifact with this id (or the id is malformed), thrown by `ArtifactStore.read`. The built-in
 * `read_artifact` tool turns it into an error result the model sees; a store of your own should
 * throw it for a missing id, not a storage-specific error.
 * @example
 * import { ArtifactNotFoundError, type ArtifactStore } from 'durable-agents/worker';
 *
 * async function readAll(store: ArtifactStore, id: string): Promise<string | null> {
 *   try {
 *     return (await store.read(id)).content;
 *   } catch (error) {
 *     if (error instanceof ArtifactNotFoundError) return null;
 *     throw error;
 *   }
 * }
 */
export class ArtifactNotFoundError extends Error {
  override name = 'ArtifactNotFoundError';
}
