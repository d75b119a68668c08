import { z } from 'zod';
import { defineTool, type Tool } from '../tools/define-tool';
import { READ_ARTIFACT_TOOL } from '../protocol/wire-names';
import type { ArtifactStore } from './artifact-store';

export { READ_ARTIFACT_TOOL };

/** The built-in tool that lets the model read an offloaded tool result, a slice at a time. */
export function createReadArtifactTool(store: ArtifactStore): Tool {
  return defineTool({
    name: READ_ARTIFACT_TOOL,
    description: 'Reads part of a large tool result that was stored as an artifact (its id is in the preview).',
    parameters: z.object({
      artifact_id: z.string(),
      offset: z.number().int().min(0).default(0).describe('First character to read'),
      length: z.number().int().min(1).max(20_000).default(4_000).describe('How many characters to read'),
    }),
    execute: async ({ artifact_id, offset, length }) => {
      const { content, totalLength } = await store.read(artifact_id, offset, length);
      const end = Math.min(totalLength, offset + content.length);
      return `[characters ${offset}-${end} of ${totalLength}]\n${content}`;
    },
  });
}
