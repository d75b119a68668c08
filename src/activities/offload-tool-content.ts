// A tool result too long for the history, stored in the artifact store with a preview the model reads instead.
import type { ArtifactStore } from '../artifacts/artifact-store';
import { READ_ARTIFACT_TOOL } from '../artifacts/read-artifact-tool';

/** How much of an offloaded result the model sees inline. */
const PREVIEW_LENGTH = 1_000;

/**
 * Stores `content` in the artifact store when it is longer than `threshold` characters and returns
 * the artifact's id and the preview the result carries instead (which says how to read the rest);
 * null when it is short enough or there is no store. Used by the tool activity and by a replayed
 * call's recorded result, so both keep the history small the same way.
 * @example
 * const offloaded = await offloadToolContent(store, content, 16_000, { workflowId, toolName: 'search', callId: 'call_1' });
 */
export async function offloadToolContent(
  artifacts: ArtifactStore | undefined,
  content: string,
  threshold: number,
  meta: { workflowId: string; toolName: string; callId: string },
): Promise<{ artifactId: string; preview: string } | null> {
  if (!artifacts || content.length <= threshold) return null;
  const artifactId = await artifacts.put(content, meta);
  const preview =
    `${content.slice(0, PREVIEW_LENGTH)}…\n[${content.length} characters in all, stored as artifact ${artifactId}; ` +
    `call ${READ_ARTIFACT_TOOL} with artifact_id "${artifactId}" to read more]`;
  return { artifactId, preview };
}
