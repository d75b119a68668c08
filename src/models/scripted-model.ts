import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ErrorCode, type ErrorCodeValue } from '../protocol/errors';
import type { Message, ToolCall } from '../protocol/messages';
import { ModelError, type ModelProvider, type ModelRequest, type ModelResponse } from './model-provider';

/**
 * A deterministic model driven by a script: executor reply N answers step N of the run (planner
 * reply N answers the planner call that sees N earlier planner replies). Because the reply depends
 * only on the step and the conversation, a retried or replayed step gets the same reply on any
 * worker. It stands in for a real provider in the demo and the tests, behind the
 * same interface.
 *
 * Text may quote tool results: `{{tool:get_weather}}` is replaced by the content of the latest
 * result of that tool in the conversation, and `{{user}}` by the latest user message (a thread's
 * turn quoting the message it answers).
 */

const errorCodes = Object.values(ErrorCode) as [ErrorCodeValue, ...ErrorCodeValue[]];

const replySchema = z.strictObject({
  text: z.string().default(''),
  toolCalls: z
    .array(z.strictObject({ name: z.string(), args: z.record(z.string(), z.unknown()).default({}), id: z.string().optional() }))
    .default([]),
  /** Fail the first `attempts` tries of this step (all tries when absent) with this error. */
  error: z
    .strictObject({
      code: z.enum(errorCodes),
      message: z.string().default('scripted failure'),
      attempts: z.number().int().min(1).optional(),
      retryAfterMs: z.number().optional(),
    })
    .optional(),
  /** Checks on what the model is given; a failed check fails the step (non-retryable). */
  expect: z
    .strictObject({
      toolsInclude: z.array(z.string()).optional(),
      toolsExclude: z.array(z.string()).optional(),
      systemIncludes: z.string().optional(),
      lastMessageIncludes: z.string().optional(),
    })
    .optional(),
  delayMs: z.number().int().min(0).optional(),
  /** Apply `delayMs` only to the first this-many attempts of the step (all attempts when absent): a step that times out, then answers. */
  delayAttempts: z.number().int().min(1).optional(),
  /** Stream the text word by word, this many ms apart (as real providers do), to clients that follow the run. */
  streamMs: z.number().int().min(0).optional(),
  usage: z.strictObject({ inputTokens: z.number(), outputTokens: z.number(), cachedInputTokens: z.number().optional() }).optional(),
});

/**
 * The zod schema of a scripted-model script (YAML or JSON): executor `replies` (reply N answers
 * step N), and optional `planner`, `compaction` and `variants` replies. A reply has `text`,
 * `toolCalls`, and may fail attempts (`error`), check what the model is given (`expect`), wait
 * (`delayMs`) or stream (`streamMs`). Unknown fields are errors.
 * @example
 * import { modelScriptSchema } from 'durable-agents/worker';
 *
 * const script = modelScriptSchema.parse({
 *   replies: [
 *     { toolCalls: [{ name: 'lookup_order', args: { orderId: '42' } }] },
 *     { text: 'Order 42: {{tool:lookup_order}}' },
 *   ],
 * });
 */
export const modelScriptSchema = z.strictObject({
  /** The executor's replies. */
  replies: z.array(replySchema).min(1),
  /** The planner phase's replies (reply N answers the planner call that sees N planner replies). */
  planner: z.array(replySchema).optional(),
  /** Compaction summaries: the Nth compaction of a run gets reply N (the last one repeats). */
  compaction: z.array(replySchema).optional(),
  /** Other executor replies for runs whose task contains `taskIncludes` (sub-agents, for example). */
  variants: z.array(z.strictObject({ taskIncludes: z.string().min(1), replies: z.array(replySchema).min(1) })).optional(),
});
/** A validated script, with every default filled in. */
export type ModelScript = z.output<typeof modelScriptSchema>;
/** A script as you write it (in code, or as a YAML / JSON file). */
export type ModelScriptInput = z.input<typeof modelScriptSchema>;
/** One validated reply of a script. */
export type ScriptedReply = z.output<typeof replySchema>;

/**
 * Reads and validates a script file (YAML or JSON).
 * @throws Error naming the file and each invalid field (the file system's error when it cannot be read).
 * @example
 * import { loadModelScript, ScriptedModel } from 'durable-agents/worker';
 *
 * const scripted = new ScriptedModel();
 * scripted.addScript('refund-happy-path', loadModelScript('test/scripts/refund.yaml'));
 */
export function loadModelScript(file: string): ModelScript {
  const raw = parseYaml(readFileSync(file, 'utf8')) as unknown;
  const result = modelScriptSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new Error(`Invalid model script ${file}:\n  ${problems.join('\n  ')}`);
  }
  return result.data;
}

/** One call of the scripted model, as `onCall` observes it. */
export interface ScriptedCall {
  /** The script's name or file (the model id after `scripted:`). */
  modelId: string;
  request: ModelRequest;
  /** The 0-based index of the reply that answers the call. */
  replyIndex: number;
}

/** Settings of a `ScriptedModel`. */
export interface ScriptedModelOptions {
  /** Scripts registered by name, used before looking for a file. */
  scripts?: Record<string, ModelScriptInput>;
  /** Folder that relative script paths resolve against. Default: the working directory. */
  baseDir?: string;
  /** Observe every call (tests assert on what the model was given). */
  onCall?: (call: ScriptedCall) => void;
}

/**
 * The `scripted:` model provider: `scripted:<name>` where name is a registered script or a path to
 * a YAML / JSON script file. Deterministic: the reply depends only on the step and the
 * conversation, so a retried or replayed step gets the same reply on any worker. A call the script
 * has no reply for fails with `ScriptedModelMismatch` (not retried), so a test notices an
 * unexpected call.
 * @example
 * import { AgentPlugin, defaultModelRegistry, ScriptedModel } from 'durable-agents/worker';
 *
 * const scripted = new ScriptedModel({
 *   scripts: { weather: { replies: [{ toolCalls: [{ name: 'get_weather', args: { city: 'Oslo' } }] }, { text: 'It is {{tool:get_weather}}.' }] } },
 * });
 * const plugin = new AgentPlugin({ tools: [getWeather], models: defaultModelRegistry(scripted) });
 * // an agent with model: 'scripted:weather' now calls get_weather, then answers
 */
export class ScriptedModel implements ModelProvider {
  private readonly scripts = new Map<string, ModelScript>();
  /** Scripts read from files, as last read (a file is read at every call, so edits apply). */
  private readonly fileScripts = new Map<string, ModelScript>();
  /** Reply indexes that answered a call, by `<script>\0<reply list>`. */
  private readonly usedReplies = new Map<string, Set<number>>();

  constructor(private readonly options: ScriptedModelOptions = {}) {
    for (const [name, script] of Object.entries(options.scripts ?? {})) this.addScript(name, script);
  }

  /**
   * Registers (or replaces) the script `scripted:<name>` answers with.
   * @throws ZodError when the script is invalid.
   */
  addScript(name: string, script: ModelScriptInput): void {
    this.scripts.set(name, modelScriptSchema.parse(script));
  }

  /**
   * The replies no call has used yet, one line each (`support: executor reply 3 of 3`), across every
   * script this model holds or has read: a test whose runs should follow their scripts to the end
   * expects none. (A call with no reply fails the step with `ScriptedModelMismatch` instead.)
   */
  unusedReplies(): string[] {
    const unused: string[] = [];
    for (const [name, script] of [...this.scripts, ...this.fileScripts]) {
      const lists: Array<[string, ScriptedReply[] | undefined]> = [
        ['executor', script.replies],
        ['planner', script.planner],
        ['compaction', script.compaction],
        ...(script.variants ?? []).map((variant): [string, ScriptedReply[]] => [variantList(variant.taskIncludes), variant.replies]),
      ];
      for (const [list, replies] of lists) {
        const used = this.usedReplies.get(`${name}\0${list}`);
        (replies ?? []).forEach((_reply, index) => {
          if (!used?.has(index)) unused.push(`${name}: ${list} reply ${index + 1} of ${replies!.length}`);
        });
      }
    }
    return unused;
  }

  /**
   * Answers with the script's reply for this call (see the class description).
   * @throws ModelError `ScriptedModelMismatch` when the script has no reply for the call or an
   * `expect` check fails, `ModelNotFoundError` when there is no such script, or the reply's own
   * scripted `error`.
   */
  async complete(request: ModelRequest): Promise<ModelResponse> {
    const script = this.scriptFor(request.modelId);
    const purpose = request.purpose ?? 'executor';
    const task = request.messages.find((message) => message.role === 'user')?.content ?? '';
    const variant = script.variants?.find((candidate) => task.includes(candidate.taskIncludes));
    const replies = purpose === 'planner' ? script.planner : purpose === 'compaction' ? script.compaction : (variant?.replies ?? script.replies);
    const replyIndex =
      purpose === 'compaction'
        ? Math.min(request.sequence ?? 0, (replies?.length ?? 1) - 1)
        : purpose === 'executor' && request.step !== undefined && request.step > 0
          ? request.step - 1
          : request.messages.filter((message) => message.role === 'assistant').length;
    this.options.onCall?.({ modelId: request.modelId, request, replyIndex });
    const reply = replies?.[replyIndex];
    if (!reply) {
      throw new ModelError(
        ErrorCode.scriptedModelMismatch,
        `Script '${request.modelId}' has ${replies?.length ?? 0} ${purpose} replies; the model was called for ${purpose} reply ${replyIndex + 1}`,
      );
    }
    this.markUsed(request.modelId, purpose === 'executor' && variant ? variantList(variant.taskIncludes) : purpose, replyIndex);
    if (reply.delayMs && (reply.delayAttempts === undefined || request.attempt <= reply.delayAttempts))
      await sleep(reply.delayMs, request.abortSignal);
    if (reply.error && (reply.error.attempts === undefined || request.attempt <= reply.error.attempts)) {
      throw new ModelError(reply.error.code, reply.error.message, reply.error.retryAfterMs);
    }
    checkExpectations(reply, request, replyIndex);
    const text = fillToolQuotes(reply.text, request.messages);
    const toolCalls: ToolCall[] = reply.toolCalls.map((call, index) => ({
      id: call.id ?? `call_${replyIndex + 1}_${index + 1}`,
      name: call.name,
      args: call.args,
    }));
    if (reply.streamMs !== undefined && request.onTextDelta) await streamWords(text, reply.streamMs, request.onTextDelta, request.abortSignal);
    return { text, toolCalls, usage: reply.usage ?? estimateUsage(request, text, toolCalls) };
  }

  private scriptFor(modelId: string): ModelScript {
    const registered = this.scripts.get(modelId);
    if (registered) return registered;
    const file = path.resolve(this.options.baseDir ?? process.cwd(), modelId);
    let script: ModelScript;
    try {
      script = loadModelScript(file);
    } catch (error) {
      throw new ModelError(ErrorCode.modelNotFound, `No scripted model '${modelId}': ${(error as Error).message}`);
    }
    this.fileScripts.set(modelId, script);
    return script;
  }

  private markUsed(modelId: string, list: string, replyIndex: number): void {
    const key = `${modelId}\0${list}`;
    const used = this.usedReplies.get(key) ?? new Set<number>();
    used.add(replyIndex);
    this.usedReplies.set(key, used);
  }
}

/** How `unusedReplies` names a variant's reply list. */
function variantList(taskIncludes: string): string {
  return `variant '${taskIncludes}'`;
}

function checkExpectations(reply: ScriptedReply, request: ModelRequest, replyIndex: number): void {
  const expect = reply.expect;
  if (!expect) return;
  const toolNames = request.tools.map((tool) => tool.name);
  const failures: string[] = [];
  for (const name of expect.toolsInclude ?? []) if (!toolNames.includes(name)) failures.push(`tool '${name}' missing`);
  for (const name of expect.toolsExclude ?? []) if (toolNames.includes(name)) failures.push(`tool '${name}' present`);
  if (expect.systemIncludes && !request.system.includes(expect.systemIncludes)) {
    failures.push(`system prompt lacks '${expect.systemIncludes}'`);
  }
  const last = request.messages.at(-1);
  if (expect.lastMessageIncludes && !(last && last.content.includes(expect.lastMessageIncludes))) {
    failures.push(`last message lacks '${expect.lastMessageIncludes}'`);
  }
  if (failures.length > 0) {
    throw new ModelError(
      ErrorCode.scriptedModelMismatch,
      `Scripted reply ${replyIndex + 1} expectations failed: ${failures.join('; ')} (tools: ${toolNames.join(', ')})`,
    );
  }
}

function fillToolQuotes(text: string, messages: Message[]): string {
  const withUser = text.replace(/\{\{user\}\}/g, (whole) => [...messages].reverse().find((message) => message.role === 'user')?.content ?? whole);
  return withUser.replace(/\{\{tool:([A-Za-z0-9_.-]+)\}\}/g, (whole, toolName: string) => {
    for (let index = messages.length - 1; index >= 0; index--) {
      const message = messages[index];
      if (message?.role === 'tool' && message.toolName === toolName) return message.content;
    }
    return whole;
  });
}

/** A rough, deterministic count (four characters a token) so usage sums are meaningful in tests. */
function estimateUsage(request: ModelRequest, text: string, toolCalls: ToolCall[]) {
  const input = request.system.length + request.messages.reduce((sum, message) => sum + message.content.length, 0);
  const output = text.length + JSON.stringify(toolCalls).length;
  return { inputTokens: Math.ceil(input / 4), outputTokens: Math.ceil(output / 4) };
}

async function streamWords(text: string, intervalMs: number, onTextDelta: (delta: string) => void, signal?: AbortSignal): Promise<void> {
  for (const word of text.match(/\S+\s*|\s+/g) ?? []) {
    onTextDelta(word);
    await sleep(intervalMs, signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
