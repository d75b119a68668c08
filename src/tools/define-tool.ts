import { z } from 'zod';
import type { JsonSchema, ToolSpec } from '../protocol/messages';

/**
 * A typed tool: a name, a description, zod parameters and an `execute` function. Tools are code and
 * live only in workers; workflows know them by name.
 */

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  workflowId: string;
  runId: string;
  callId: string;
  step: number;
  /**
   * The same on every execution of this call: retries, a worker that died mid-call, continue-as-new.
   * Tools run at least once, so pass it to the systems a tool changes (a payment, a ticket, an
   * email) to make the call idempotent. Unique per call across the runs of one workflow id.
   */
  idempotencyKey: string;
  /**
   * The resource the run is for (a user, a team: `user:42`), when it was started with one
   * (`startRun({ resourceId })`): scope what the tool reads and writes to it. The memory tools do.
   */
  resourceId?: string;
  /** 1 on the first execution of this call, 2 on the next (a retry, or after a worker died), … */
  attempt: number;
  /** Aborted when the run is cancelled or the activity times out. */
  signal: AbortSignal;
  /** Report liveness (and optional progress details); long tools should call it. */
  heartbeat(details?: unknown): void;
  /**
   * Report progress (MCP progress notifications use this). Shown live through the activity's
   * heartbeat details, and as `mcp-progress` events unless the agent sets emit_mcp_progress: false.
   */
  reportProgress(progress: number, total?: number, message?: string): void;
}

/**
 * A tool as a worker holds it: what `defineTool` returns. Give tools to the worker
 * (`new AgentPlugin({ tools })`); agent configs name them in `tools`.
 */
export interface Tool<Args = any> {
  readonly name: string;
  readonly description: string;
  readonly parameters: z.ZodType<Args>;
  /** Whether sub-agents may be given this tool. */
  readonly childSafe: boolean;
  execute(args: Args, context: ToolContext): unknown;
  /** The tool as the model sees it (its parameters as JSON Schema). */
  spec(): ToolSpec;
}

/** What `defineTool` takes. */
export interface ToolDefinition<Schema extends z.ZodType> {
  /** The name configs list in `tools` and the model calls: 1-64 letters, digits, `_`, `.` or `-`; unique on a worker. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** A zod 4 schema of the arguments; the model sees it as JSON Schema, and arguments that fail it never reach `execute`. */
  parameters: Schema;
  /** Whether sub-agents may be given this tool. Default: true. */
  childSafe?: boolean;
  /**
   * Runs the call in an activity, so it may do any I/O. A retried activity (a worker that died
   * mid-call, a `RetryableToolError`) runs it again: make side effects idempotent, for example
   * keyed on `context.workflowId` and `context.callId`.
   */
  execute(args: z.output<Schema>, context: ToolContext): unknown;
}

/**
 * Defines a tool. Returning a string gives the model that string; anything else is sent as JSON.
 * Throwing gives the model an error result; throw `RetryableToolError` to have Temporal retry.
 * @example
 * const getWeather = defineTool({
 *   name: 'get_weather',
 *   description: 'Current weather for a city',
 *   parameters: z.object({ city: z.string() }),
 *   execute: ({ city }) => `Sunny in ${city}`,
 * });
 */
export function defineTool<Schema extends z.ZodType>(definition: ToolDefinition<Schema>): Tool<z.output<Schema>> {
  assertZod4Schema(definition);
  let cachedSchema: JsonSchema | undefined;
  return {
    name: definition.name,
    description: definition.description,
    parameters: definition.parameters as unknown as z.ZodType<z.output<Schema>>,
    childSafe: definition.childSafe ?? true,
    execute: definition.execute,
    spec() {
      cachedSchema ??= toModelJsonSchema(definition.parameters);
      // A fresh copy each time: callers may merge fields into it without touching the tool.
      return { name: definition.name, description: definition.description, parameters: structuredClone(cachedSchema) };
    },
  };
}

/**
 * Zod 3 schemas look alike but cannot be turned into JSON Schema by zod 4 (a TypeError deep inside
 * `spec()` otherwise): say so when the tool is defined.
 */
function assertZod4Schema(definition: { name: string; parameters: unknown }): void {
  const schema = definition.parameters as { _zod?: unknown; _def?: unknown } | null;
  if (schema && typeof schema === 'object' && '_zod' in schema) return;
  const found = schema && typeof schema === 'object' && '_def' in schema ? 'a zod 3 schema' : `${typeof schema}`;
  throw new TypeError(
    `defineTool('${definition.name}'): parameters must be a zod 4 schema, got ${found}. Install zod@^4 (or import { z } from 'zod/v4' with zod 3.25+).`,
  );
}

/** JSON Schema of zod parameters in the dialect providers accept (no `$schema` key). */
export function toModelJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/**
 * Thrown by a tool for a transient failure that a retry may fix: Temporal retries the tool's
 * activity (5 attempts in all, with backoff); after the last one the model gets a `ToolFailed`
 * error result. Any other error the tool throws becomes that error result at once, with no retry.
 * @example
 * import { z } from 'zod';
 * import { defineTool, RetryableToolError } from 'durable-agents';
 *
 * export const fetchInvoice = defineTool({
 *   name: 'fetch_invoice',
 *   description: 'Fetches an invoice by id',
 *   parameters: z.object({ invoiceId: z.string() }),
 *   execute: async ({ invoiceId }, { signal }) => {
 *     const response = await fetch(`https://billing.internal/invoices/${invoiceId}`, { signal });
 *     if (response.status === 503) throw new RetryableToolError('billing is unavailable, try again');
 *     if (!response.ok) throw new Error(`no invoice ${invoiceId} (HTTP ${response.status})`);
 *     return response.json();
 *   },
 * });
 */
export class RetryableToolError extends Error {
  override name = 'RetryableToolError';
}
