// The built-in memory tools an agent with `memory: true` gets: remember, recall and forget, over
// the memory of the resource its run is for.
import { z } from 'zod';
import { defineTool, type Tool, type ToolContext } from '../tools/define-tool';
import { FORGET_TOOL, RECALL_TOOL, REMEMBER_TOOL } from '../protocol/wire-names';
import { MEMORY_LIMITS, type MemoryEntry, type MemoryStore } from './memory-store';

/** Recall results the model sees at most, and their characters in all (each entry cut to a share). */
export const RECALL_TOOL_LIMITS = { entries: 20, defaultEntries: 5, characters: 6_000, entryCharacters: 1_000 } as const;

/**
 * `remember`, `recall` and `forget` over `store`, scoped to the run's `resourceId`. Tools run at
 * least once: `remember` stores under the call's idempotency key, so a retried call (a worker that
 * died, a timeout) finds the entry the first attempt stored instead of storing it again; `forget`
 * deletes, which a retry cannot repeat. A store that is down, or a run without a resource id,
 * gives the model an error result; the run goes on.
 * @example
 * import { AgentPlugin, createMemoryTools, FolderMemoryStore } from 'durable-agents/worker';
 *
 * // The plugin registers these itself; build them for a ToolRegistry of your own.
 * const [remember, recall, forget] = createMemoryTools(new FolderMemoryStore('/var/lib/agents/memory'));
 */
export function createMemoryTools(store: MemoryStore): Tool[] {
  const remember = defineTool({
    name: REMEMBER_TOOL,
    description:
      'Stores one fact about the user (or team) this conversation is for, to recall in later conversations: a preference, a decision, a detail they gave. One fact per call, in a full sentence.',
    parameters: z.object({
      text: z.string().min(1).max(MEMORY_LIMITS.textCharacters).describe('The fact, e.g. "Prefers answers in French."'),
      tags: z
        .array(z.string().min(1).max(MEMORY_LIMITS.tagCharacters))
        .max(MEMORY_LIMITS.tags)
        .optional()
        .describe('Optional keywords to find it by'),
    }),
    execute: async ({ text, tags }, context) => {
      const { entry } = await store.remember({
        resource: resourceOf(context),
        text,
        ...(tags ? { tags } : {}),
        source: { workflowId: context.workflowId, callId: context.callId },
        idempotencyKey: context.idempotencyKey,
      });
      // The same words whether this attempt stored it or an earlier one did: a retry is invisible.
      return `Remembered as ${entry.id}.`;
    },
  });

  const recall = defineTool({
    name: RECALL_TOOL,
    description:
      'Searches what was remembered about the user (or team) in earlier conversations. Give words to look for; without a query, lists the newest memories. Entries containing more of the words come first.',
    parameters: z.object({
      query: z.string().max(MEMORY_LIMITS.queryCharacters).optional().describe('Words to look for, e.g. "language preference"'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(RECALL_TOOL_LIMITS.entries)
        .optional()
        .describe(`How many memories at most (default ${RECALL_TOOL_LIMITS.defaultEntries})`),
    }),
    execute: async ({ query, limit }, context) => {
      const entries = await store.recall({ resource: resourceOf(context), text: query ?? '', limit: limit ?? RECALL_TOOL_LIMITS.defaultEntries });
      if (entries.length === 0) return query?.trim() ? `No memories match "${query.trim()}".` : 'Nothing remembered yet.';
      return formatEntries(entries);
    },
  });

  const forget = defineTool({
    name: FORGET_TOOL,
    description:
      'Deletes remembered facts that are wrong or that the user asks to be forgotten: one memory by its id (as recall shows it), or every memory whose text contains the given words.',
    parameters: z
      .object({
        id: z.string().min(1).optional().describe('A memory id from recall, e.g. "mem-0123…"'),
        matching: z
          .string()
          .min(1)
          .max(MEMORY_LIMITS.queryCharacters)
          .optional()
          .describe('Delete every memory whose text contains this (ignoring case)'),
      })
      .refine((args) => (args.id === undefined) !== (args.matching === undefined), 'give exactly one of id or matching'),
    execute: async ({ id, matching }, context) => {
      const resource = resourceOf(context);
      const deleted = await store.forget(id !== undefined ? { resource, id } : { resource, matching: matching! });
      if (deleted.length === 0)
        return id !== undefined ? `No memory ${id} (already forgotten, or never stored).` : `No memory contains "${matching}".`;
      return `Forgot ${deleted.length} ${deleted.length === 1 ? 'memory' : 'memories'}:\n${deleted.map((entry) => `- ${entry.id}: ${cut(entry.text, 200)}`).join('\n')}`;
    },
  });

  return [remember, recall, forget];
}

/** The run's resource id. @throws Error telling how to start a run with one (the model sees it as the tool's error). */
function resourceOf(context: ToolContext): string {
  if (context.resourceId === undefined) {
    throw new Error(
      "this run has no resource id, so there is no memory to use: start the run with one (startRun({ resourceId: 'user:42' }), run --resource user:42)",
    );
  }
  return context.resourceId;
}

/** One line an entry, bounded in all: the model's context is not the place for a whole memory dump. */
function formatEntries(entries: MemoryEntry[]): string {
  const lines: string[] = [];
  let characters = 0;
  for (const [index, entry] of entries.entries()) {
    const tags = entry.tags.length > 0 ? ` [${entry.tags.join(', ')}]` : '';
    const line = `- ${entry.id} (${entry.createdAt.slice(0, 10)}): ${cut(entry.text, RECALL_TOOL_LIMITS.entryCharacters)}${tags}`;
    if (characters + line.length > RECALL_TOOL_LIMITS.characters) {
      lines.push(`(${entries.length - index} more not shown: ask for fewer, or with other words)`);
      break;
    }
    lines.push(line);
    characters += line.length + 1;
  }
  return lines.join('\n');
}

function cut(text: string, characters: number): string {
  return text.length > characters ? `${text.slice(0, characters - 1)}…` : text;
}
