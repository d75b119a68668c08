// A fork's edits: what callers give (checked with zod) resolved against the origin's history into messages to replace.
import { z } from 'zod';
import type { TranscriptEntry } from '../history/history-entries';
import { AgentRuntimeError, ErrorCode } from '../protocol/errors';
import { describeForkEdit } from '../protocol/fork-edit-description';
import type { ForkEdit } from '../protocol/fork-types';
import { jsonBytes } from '../protocol/payload-size';
import type { InjectedMessage } from '../protocol/run-messages';
import { WireName } from '../protocol/wire-names';

/**
 * What a fork may change in the conversation it starts from: the result of a tool call (by call
 * id, or by step, tool name and which of that tool's calls in the step), or a message of a step
 * (the user message it answered, the text of the model's reply). `content` that is not a string is
 * given to the model as JSON.
 * @example
 * const edits: ForkEditRequest[] = [
 *   { toolResult: { step: 2, tool: 'lookup_order' }, content: { status: 'lost' } },
 *   { message: { step: 1, role: 'user' }, content: 'Where is order 43?' },
 * ];
 */
export type ForkEditRequest =
  | {
      toolResult:
        | { callId: string }
        | {
            step: number;
            tool: string;
            /** Which of the tool's calls in the step, from 1 (needed when it called the tool more than once). */ index?: number;
          };
      content: string | number | boolean | null | unknown[] | Record<string, unknown>;
      /** The model sees the result as an error result. */
      isError?: boolean;
    }
  | { message: { step: number; role: 'user' | 'assistant' }; content: string };

const jsonContent = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())], {
  error: 'expected the replacement: a text, or a JSON value',
});
const stepNumber = z.number().int().min(1, 'expected a step number from 1');

const forkEditRequestSchema = z.union([
  z.strictObject({
    toolResult: z.union([
      z.strictObject({ callId: z.string().min(1, 'expected a tool call id') }),
      z.strictObject({
        step: stepNumber,
        tool: z.string().min(1, 'expected a tool name'),
        index: z.number().int().min(1, 'expected 1 for the first call of the tool in the step').optional(),
      }),
    ]),
    content: jsonContent,
    isError: z.boolean().optional(),
  }),
  z.strictObject({
    message: z.strictObject({ step: stepNumber, role: z.enum(['user', 'assistant']) }),
    content: z.string({ error: 'expected the replacement text' }),
  }),
]);

/** Edits travel in the fork's start input (its history's first event): kept well under a payload's 1 MB. */
export const FORK_EDITS_LIMIT_BYTES = 256_000;

/** How much of what an edit replaces the fork's input keeps, for `history` to show. */
const RECORDED_PREVIEW_CHARACTERS = 1_000;

type ModelEntry = Extract<TranscriptEntry, { kind: 'model' }>;

/** The execution of the origin that took the forked step, as `planFork` found it. */
export interface ForkedExecution {
  workflowId: string;
  /** The forked step. */
  step: number;
  /** The execution's transcript. */
  entries: TranscriptEntry[];
  /** The forked step's model entry (its conversation is the one the fork keeps). */
  entry: ModelEntry;
}

/**
 * Checks the edits (zod, then against the execution's history) and resolves each to the message
 * it replaces in the conversation the fork keeps. Edits may change any step of that conversation
 * (the execution and conversation epoch of the forked step) up to the forked step.
 * @throws AgentRuntimeError `ForkEditInvalid` naming the field (`edits[1].toolResult.callId`) and
 * the step, call or role that is not there.
 */
export function resolveForkEdits(requests: readonly unknown[], execution: ForkedExecution): ForkEdit[] {
  const edits = requests.map((request, position) => resolveEdit(parseRequest(request, position), position, execution));
  edits.forEach((edit, position) => {
    const earlier = edits.findIndex(
      (other) =>
        other.kind === edit.kind &&
        other.index === edit.index &&
        (edit.kind !== 'tool-result' || (other.kind === 'tool-result' && other.callId === edit.callId)),
    );
    if (earlier !== position) throw invalid(`edits[${position}]: changes ${describeForkEdit(edit)}, as does edits[${earlier}]; give one edit for it`);
  });
  const bytes = jsonBytes(edits);
  if (bytes > FORK_EDITS_LIMIT_BYTES) {
    throw invalid(
      `edits: ${bytes} bytes of edited content; at most ${FORK_EDITS_LIMIT_BYTES} travel in the fork's input. Give a shorter replacement (a tool that returned more would have had it offloaded to the artifact store).`,
    );
  }
  return edits;
}

function parseRequest(request: unknown, position: number): z.output<typeof forkEditRequestSchema> {
  const parsed = forkEditRequestSchema.safeParse(request);
  if (parsed.success) return parsed.data;
  if (!keyOf(request))
    throw invalid(`edits[${position}]: expected { toolResult: … } (a tool call's result) or { message: … } (a message of a step) to edit`);
  // A union reports its branches' issues; the branch named by the request's own key says most.
  const issues = parsed.error.issues.flatMap((issue) =>
    issue.code === 'invalid_union'
      ? (issue.errors.find((branch) => branch.some((inner) => inner.path[0] === keyOf(request))) ?? issue.errors[0] ?? [issue])
      : [issue],
  );
  const problems = issues.map((issue) => `edits[${position}]${issue.path.map((key) => `.${String(key)}`).join('')}: ${issue.message}`);
  throw invalid(
    `${problems.join('; ')} (an edit is { toolResult: { callId } | { step, tool, index? }, content, isError? } or { message: { step, role: 'user' | 'assistant' }, content })`,
  );
}

function keyOf(request: unknown): string | undefined {
  return request && typeof request === 'object' ? Object.keys(request).find((key) => key === 'toolResult' || key === 'message') : undefined;
}

function resolveEdit(request: z.output<typeof forkEditRequestSchema>, position: number, execution: ForkedExecution): ForkEdit {
  const field = `edits[${position}]`;
  if ('toolResult' in request) {
    const target = request.toolResult;
    const { entry, call } =
      'callId' in target ? callById(target.callId, `${field}.toolResult.callId`, execution) : callByTool(target, `${field}.toolResult`, execution);
    const recorded = execution.entries.find((other) => other.kind === 'tool' && other.step === entry.step && other.callId === call.id);
    const content = typeof request.content === 'string' ? request.content : JSON.stringify(request.content);
    return {
      kind: 'tool-result',
      step: entry.step,
      index: entry.conversation!.count,
      callId: call.id,
      tool: call.name,
      content,
      isError: request.isError ?? false,
      recorded: recorded?.kind === 'tool' && recorded.result ? preview(recorded.result.content) : null,
    };
  }
  const { step, role } = request.message;
  const entry = modelEntryAt(step, `${field}.message.step`, execution);
  if (role === 'assistant')
    return { kind: 'message', step, index: entry.conversation!.count, role, content: request.content, recorded: preview(entry.text ?? '') };
  if (!request.content.trim()) throw invalid(`${field}.content: the user message of step ${step} must not be empty`);
  return {
    kind: 'message',
    step,
    index: userMessageIndex(entry, `${field}.message`, execution),
    role,
    content: request.content,
    recorded: userMessageText(entry, execution),
  };
}

/** The model entries of the conversation the fork keeps: same execution and epoch as the forked step, up to it. */
function keptSteps(execution: ForkedExecution): ModelEntry[] {
  const epoch = execution.entry.conversation!.epoch;
  const byStep = new Map<number, ModelEntry>();
  for (const other of execution.entries) {
    if (
      other.kind === 'model' &&
      other.activityId.startsWith('step-') &&
      other.step <= execution.step &&
      other.conversation?.epoch === epoch &&
      !other.failure
    )
      byStep.set(other.step, other);
  }
  return [...byStep.values()];
}

function modelEntryAt(step: number, field: string, execution: ForkedExecution): ModelEntry {
  if (step > execution.step)
    throw invalid(`${field}: step ${step} is after step ${execution.step}, where the fork starts; the fork keeps steps up to ${execution.step} only`);
  const kept = keptSteps(execution);
  const entry = kept.find((candidate) => candidate.step === step);
  if (!entry)
    throw invalid(
      `${field}: step ${step} of run ${execution.workflowId} is not in the conversation the fork keeps (${describeSteps(kept)}: the execution and conversation of step ${execution.step}; a continue-as-new or a compaction came in between)`,
    );
  return entry;
}

function callById(callId: string, field: string, execution: ForkedExecution): { entry: ModelEntry; call: ModelEntry['toolCalls'][number] } {
  const kept = keptSteps(execution);
  for (const entry of kept) {
    const call = entry.toolCalls.find((candidate) => candidate.id === callId);
    if (call) return { entry, call };
  }
  const known = kept.flatMap((entry) => entry.toolCalls.map((call) => `${call.id} (step ${entry.step}, ${call.name})`));
  throw invalid(
    `${field}: run ${execution.workflowId} has no tool call '${callId}' in the conversation the fork keeps (${describeSteps(kept)}); its calls there: ${known.join(', ') || 'none'}`,
  );
}

function callByTool(
  target: { step: number; tool: string; index?: number | undefined },
  field: string,
  execution: ForkedExecution,
): { entry: ModelEntry; call: ModelEntry['toolCalls'][number] } {
  const entry = modelEntryAt(target.step, `${field}.step`, execution);
  const calls = entry.toolCalls.filter((call) => call.name === target.tool);
  const made = entry.toolCalls.map((call) => call.name).join(', ') || 'no tool';
  if (calls.length === 0)
    throw invalid(`${field}.tool: step ${target.step} of run ${execution.workflowId} made no call of '${target.tool}' (it called ${made})`);
  if (target.index === undefined && calls.length > 1) {
    throw invalid(
      `${field}.index: step ${target.step} called '${target.tool}' ${calls.length} times; say which (${calls.map((call, index) => `#${index + 1}: ${call.id}`).join(', ')})`,
    );
  }
  const call = calls[(target.index ?? 1) - 1];
  if (!call) throw invalid(`${field}.index: step ${target.step} called '${target.tool}' ${calls.length} time(s); there is no #${target.index}`);
  return { entry, call };
}

/**
 * Where the user message a step answered is: just before the step's input ends, when messages
 * came after the previous step's results (an injected message, the task of the first step).
 */
function userMessageIndex(entry: ModelEntry, field: string, execution: ForkedExecution): number {
  const count = entry.conversation!.count;
  const previous = keptSteps(execution)
    .filter((other) => other.step < entry.step)
    .at(-1);
  if (previous) {
    const end = previous.conversation!.count + 1 + previous.toolCalls.length + (previous.outputError ? 1 : 0);
    if (count > end) return count - 1;
    throw invalid(
      `${field}.role: step ${entry.step} answered no user message of its own (its input ends with the results of step ${previous.step}); ` +
        `edit the user message of an earlier step, or add one after step ${execution.step} with the fork's task`,
    );
  }
  const started = execution.entries.find((other) => other.kind === 'started');
  if (started?.kind === 'started' && !started.continued) return count - 1;
  throw invalid(
    `${field}.role: step ${entry.step} is the first step of an execution that continued from an earlier one: its last input message is not known to be a user message; fork from a later step of it, or from the earlier execution`,
  );
}

/** The user message's text as recorded: the run's task, or the message injected before the step. */
function userMessageText(entry: ModelEntry, execution: ForkedExecution): string | null {
  const position = execution.entries.indexOf(entry);
  let previousModel = position - 1;
  while (previousModel >= 0 && execution.entries[previousModel]!.kind !== 'model') previousModel--;
  const injected = execution.entries
    .slice(previousModel + 1, position)
    .flatMap((other) =>
      (other.kind === 'signal' || other.kind === 'update') && INJECTIONS.has(other.name) && !other.ignored ? [injectedText(other.payload)] : [],
    )
    .filter((text): text is string => text !== null)
    .at(-1);
  if (injected !== undefined) return preview(injected);
  const started = execution.entries.find((other) => other.kind === 'started');
  return previousModel === -1 && started?.kind === 'started' && started.task !== undefined ? preview(started.task) : null;
}

const INJECTIONS = new Set<string>([WireName.injectMessageSignal, WireName.injectMessageUpdate]);

function injectedText(payload: unknown): string | null {
  const text = payload && typeof payload === 'object' ? (payload as Partial<InjectedMessage>).text : undefined;
  return typeof text === 'string' ? text : null;
}

function describeSteps(kept: ModelEntry[]): string {
  if (kept.length === 0) return 'no steps';
  return kept.length === 1 ? `step ${kept[0]!.step}` : `steps ${kept[0]!.step}-${kept.at(-1)!.step}`;
}

function preview(text: string): string {
  return text.length > RECORDED_PREVIEW_CHARACTERS ? `${text.slice(0, RECORDED_PREVIEW_CHARACTERS - 1)}…` : text;
}

function invalid(message: string): AgentRuntimeError {
  return new AgentRuntimeError(ErrorCode.forkEditInvalid, message);
}
