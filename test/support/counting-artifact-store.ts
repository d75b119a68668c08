// An artifact store wrapper that counts what is written and read, so tests can assert on bytes rather than time.
import type { ArtifactStore } from '../../src/artifacts/artifact-store';

/** Passes every call to a real store, adding up the UTF-8 bytes put (per tool name) and the reads. */
export class CountingArtifactStore implements ArtifactStore {
  readonly bytesPut = new Map<string, number>();
  readonly reads: string[] = [];

  constructor(private readonly inner: ArtifactStore) {}

  async put(content: string, meta: { workflowId: string; toolName: string; callId: string }): Promise<string> {
    this.bytesPut.set(meta.toolName, (this.bytesPut.get(meta.toolName) ?? 0) + Buffer.byteLength(content, 'utf8'));
    return this.inner.put(content, meta);
  }

  async read(id: string, offset?: number, length?: number): Promise<{ content: string; totalLength: number }> {
    this.reads.push(id);
    return this.inner.read(id, offset, length);
  }

  /** `counting <inner>`, as errors name the store. */
  toString(): string {
    return `counting ${String(this.inner)}`;
  }
}
