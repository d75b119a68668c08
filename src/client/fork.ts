// Plans a fork from its origin's history: the execution that took the step, the conversation kept, the fork's input.
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { parseAgentConfig, type AgentConfig, type AgentConfigInput } from '../config/agent-config';
import { AgentRuntimeError, ErrorCode } from '../protocol/errors';
import type { ForkOrigin } from '../protocol/fork-types';
import { resolveHandoffAgents } from '../config/handoff-agents';
import type { ModelStepResult, ResolvedRunInput } from '../protocol/run-types';
import { upgradeConfig } from '../config/upgrade-config';
import { withSkillSourceKeys } from '../skills/skill-source';
import { nextMove, stepLimitOf } from '../protocol/step-moves';
import type { TranscriptEntry } from '../history/history-entries';
import { resolveForkEdits, type ForkEditRequest } from './fork-edits';
import { startedRunInput } from '../history/started-input';
import { fetchRunChain, transcriptFromEvents, type ChainExecution } from '../history/history-view';

/**
 * Planning a fork: which execution of the origin's chain took the step, how long its
 * conversation was at the end of that step, and whether that conversation can still be read.
 * Everything comes from the origin's history, read through the `history` view's code, so step
 * numbers are the ones `durable-agents history` prints. Nothing starts here.
 */

/** What `AgentClient.fork` takes besides the origin's workflow id. */
export interface ForkOptions {
  /** The origin's step whose end the fork starts from, as `durable-agents history` numbers it (1 = the first executor step). */
  fromStep: number;
  /** The config the fork continues under. Default: the config of the agent that took the step. */
  config?: AgentConfigInput | AgentConfig;
  /** A model ("provider:model") instead of the config's. */
  model?: string;
  /** A user message the fork adds after the step (the model's next input). */
  task?: string;
  /** A specific execution of the origin's chain to read the chain from (default: the latest). */
  runId?: string;
  /** Default: `<agent name>-fork-<random id>`. */
  workflowId?: string;
  /** Configs of agents the fork may hand off to (default: the origin's). */
  agents?: Record<string, AgentConfigInput | AgentConfig>;
  /**
   * Changes to the conversation the fork starts from: a tool call's result, the user message a
   * step answered, or the text of a model reply, at the forked step or an earlier one of the same
   * conversation. They are part of the fork's input (its history's first event) and `history` on
   * the fork shows them with what they replaced.
   */
  edits?: ForkEditRequest[];
}

/** A fork ready to start: its workflow input, and the origin it links to. */
export interface PlannedFork {
  input: ResolvedRunInput & { fork: ForkOrigin };
  /** The agent that took the forked step in the origin. */
  originAgent: string;
}

type ModelEntry = Extract<TranscriptEntry, { kind: 'model' }>;

/**
 * Reads the origin's history and builds the fork's input.
 * @throws AgentRuntimeError `RunNotFound` for an unknown run, `ForkRefused` for a step that does
 * not exist, has not finished or can no longer be read, `ForkEditInvalid` for an edit that does
 * not fit the origin's history; AgentConfigError for an invalid config.
 */
export async function planFork(client: Client, workflowId: string, options: ForkOptions): Promise<PlannedFork> {
  const step = options.fromStep;
  if (!Number.isInteger(step) || step < 1) {
    throw refused(
      `--from-step: expected a step number from 1 (as \`durable-agents history ${workflowId}\` prints them; the planner's 'plan N' calls cannot be forked from, step 1 keeps the plan), got '${String(step)}'`,
    );
  }
  const given = options.config === undefined ? undefined : parseAgentConfig(options.config, 'the fork config');
  const chain = await readChain(client, workflowId, options.runId);
  const found = findStep(chain, workflowId, step);
  const { execution, entries, entry, input: originInput } = found;
  const stepLimit = stepLimitOf(upgradeConfig(originInput.config), originInput.carried);
  const reply = {
    message: { role: 'assistant', content: entry.text ?? '', toolCalls: entry.toolCalls },
    usage: { inputTokens: 0, outputTokens: 0 },
    model: entry.model,
    ...(entry.outputError ? { outputError: entry.outputError } : {}),
  } as ModelStepResult;
  const move = nextMove(reply, step, stepLimit);
  const resolved = resolveForkEdits(options.edits ?? [], { workflowId, step, entries, entry });
  const unfinished =
    move.kind === 'run-tools'
      ? move.calls.filter(
          (call) => !entries.some((other) => other.kind === 'tool' && other.step === step && other.callId === call.id && other.result !== null),
        )
      : [];
  const resultsGiven = new Set(resolved.flatMap((edit) => (edit.kind === 'tool-result' && edit.step === step ? [edit.callId] : [])));
  // Between a reply and its tool calls: a step none of whose calls has a result yet (waiting for an
  // approval, say) can be forked when the edits give every result; its conversation ends at the reply.
  const between = move.kind === 'run-tools' && unfinished.length === move.calls.length && unfinished.every((call) => resultsGiven.has(call.id));
  if (move.kind === 'run-tools' && unfinished.length > 0 && !between) {
    throw refused(
      `step ${step} of run ${workflowId} has not finished: ${move.calls.length - unfinished.length} of its ${move.calls.length} tool calls have a result. Fork from an earlier step, or wait` +
        (unfinished.length === move.calls.length
          ? `, or give the result of each call (--edit-tool-result ${unfinished.map((call) => `${call.id}=…`).join(' ')})`
          : ''),
    );
  }
  const edits = between
    ? resolved.map((edit) => (edit.kind === 'tool-result' && edit.step === step ? { ...edit, pending: true as const } : edit))
    : resolved;
  if (move.kind === 'finish' && (options.task === undefined || !options.task.trim())) {
    const edited = edits.findIndex((edit) => edit.step === step);
    if (edited !== -1) {
      throw new AgentRuntimeError(
        ErrorCode.forkEditInvalid,
        `edits[${edited}]: step ${step} of run ${workflowId} is its final answer (${move.stopReason}); after an edit of it the fork still has nothing to answer. Give the message the fork answers (--task), or fork from an earlier step`,
      );
    }
    throw refused(
      `step ${step} of run ${workflowId} is its final answer (${move.stopReason}): a fork from it has nothing to answer. ` +
        `Give the message the fork answers (--task), or fork from an earlier step`,
    );
  }
  const later = entries.find((other) => other.kind === 'compaction' && other.step > step);
  if (later && later.kind === 'compaction') {
    throw refused(
      `run ${workflowId} compacted its conversation at step ${later.step}, after step ${step}: the run no longer holds the conversation up to step ${step}. ` +
        `Fork from step ${later.step} or later (or from a step of an earlier execution of the run).`,
    );
  }
  const conversation = {
    epoch: entry.conversation!.epoch,
    count: entry.conversation!.count + 1 + (move.kind === 'correct-output' ? 1 : move.kind === 'run-tools' && !between ? move.calls.length : 0),
  };
  const base = given ?? originInput.config;
  const config = withSkillSourceKeys(options.model ? parseAgentConfig({ ...base, model: options.model }, 'the fork config') : base);
  const agents = resolveHandoffAgents(config, options.agents ?? originInput.agents ?? {}, (agent) => withSkillSourceKeys(agent));
  if (options.task !== undefined && !options.task.trim()) throw refused('--task: the message the fork adds must not be empty');
  const fork: ForkOrigin = {
    workflowId,
    runId: execution.runId,
    step,
    conversation,
    taskIndex: originInput.carried?.taskIndex ?? originInput.messages?.length ?? 0,
    ...(options.task !== undefined ? { message: options.task } : {}),
    ...(edits.length > 0 ? { edits } : {}),
  };
  const input = {
    config,
    task: originInput.task,
    ...(Object.keys(agents).length > 0 ? { agents } : {}),
    ...(originInput.timeouts ? { timeouts: originInput.timeouts } : {}),
    ...(originInput.historyEventLimit !== undefined ? { historyEventLimit: originInput.historyEventLimit } : {}),
    ...(originInput.historySizeLimitBytes !== undefined ? { historySizeLimitBytes: originInput.historySizeLimitBytes } : {}),
    // A fork works for the same user (or team) as its origin: the same memory.
    ...(originInput.resourceId !== undefined ? { resourceId: originInput.resourceId } : {}),
    fork,
  };
  return { input, originAgent: originInput.config.name };
}

async function readChain(client: Client, workflowId: string, runId: string | undefined): Promise<ChainExecution[]> {
  try {
    return await fetchRunChain(client, workflowId, runId);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) {
      throw new AgentRuntimeError(
        ErrorCode.runNotFound,
        `Unknown run '${workflowId}'${runId ? ` (execution ${runId})` : ''}: no workflow with that id in this namespace`,
      );
    }
    throw error;
  }
}

/** The execution of the chain that took executor step `step`, its transcript, the step's (last) model entry and the execution's input. */
function findStep(
  chain: ChainExecution[],
  workflowId: string,
  step: number,
): { execution: ChainExecution; entries: TranscriptEntry[]; entry: ModelEntry; input: ResolvedRunInput } {
  let lastStep = 0;
  let firstInput: ResolvedRunInput | null = null;
  for (const execution of chain) {
    const input = startedRunInput(execution.events);
    if (!input?.config) throw refused(`run ${workflowId} is not an agent run (its input has no agent config)`);
    firstInput ??= input;
    const entries = transcriptFromEvents(execution.events);
    const models = entries.filter((entry): entry is ModelEntry => entry.kind === 'model' && entry.activityId.startsWith('step-'));
    lastStep = Math.max(lastStep, ...models.map((entry) => entry.step));
    const entry = models.filter((candidate) => candidate.step === step).at(-1);
    if (!entry) continue;
    if (entry.failure || entry.durationMs === null)
      throw refused(
        `step ${step} of run ${workflowId} has not finished (its model call ${entry.failure ? `failed: ${entry.failure}` : 'is still running'})`,
      );
    if (!entry.conversation)
      throw refused(
        `step ${step} of run ${workflowId} was recorded by a version of the runtime that did not pass conversations by reference; it cannot be forked`,
      );
    return { execution, entries, entry, input };
  }
  if (lastStep === 0) throw refused(`run ${workflowId} has no finished executor step yet`);
  if (step > lastStep) throw refused(`step ${step} is beyond the last step of run ${workflowId} (${lastStep})`);
  const forkOf = firstInput?.fork;
  if (forkOf && step <= forkOf.step)
    throw refused(`step ${step} of run ${workflowId} was taken by the run it was forked from: fork ${forkOf.workflowId} from step ${step} instead`);
  throw refused(`run ${workflowId} has no executor step ${step}`);
}

function refused(message: string): AgentRuntimeError {
  return new AgentRuntimeError(ErrorCode.forkRefused, message);
}
