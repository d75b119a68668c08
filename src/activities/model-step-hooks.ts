// The hooks of a model step: the run's (turn's) start, before and after the model call, before-tool decisions, errors.
import type { HookRunContext, HookRunner } from '../hooks/hook-runner';
import type { ToolDecision } from '../protocol/call-deciders';
import type { HookFailureReport, ModelStepHookReport, ModelStepHooks } from '../protocol/hook-types';
import { splitMcpToolName } from '../protocol/mcp-tool-names';
import type { Message, ToolCall, Usage } from '../protocol/messages';
import type { ModelStepInput } from '../protocol/run-types';
import { splitInjectedArgs } from '../protocol/split-injected-args';
import type { Conversation } from './conversation-source';
import type { LiveHeartbeat } from './heartbeat';
import { hookEventBase, hookFailedFailure, hookRunContext, logHookFailures, whileHeartbeating } from './hook-support';

/**
 * A model step's hooks, for the agent its input names. The start hooks of a run or turn
 * (`input.hooks.opening`) and the before-model hooks run before the model is called; after it, the
 * after-model hooks may replace the text and the before-tool hooks decide each tool call, so the
 * redacted text and the decisions are what the step returns and the history records. With
 * `hook_errors: fail`, a start, before-model or after-model hook that throws (or passes its time
 * limit) fails the step (`HookFailed`, not retried); a before-tool hook that does fails its call only.
 * Each hook runs shown in the step's heartbeat details (`live`), which is how `status` names it.
 */
export class ModelStepHookRun {
  private readonly ignored: HookFailureReport[] = [];
  private readonly context: ModelStepHooks & HookRunContext;

  private constructor(
    private readonly runner: HookRunner,
    context: ModelStepHooks,
    private readonly input: ModelStepInput,
    private readonly attempt: number,
    private readonly live: LiveHeartbeat,
  ) {
    this.context = hookRunContext(context, live);
  }

  /** The step's hooks, or null when its input names no agent or the worker has no hook for it. */
  static of(runner: HookRunner, input: ModelStepInput, attempt: number, live: LiveHeartbeat): ModelStepHookRun | null {
    if (!input.hooks || runner.points(input.hooks.agent).length === 0) return null;
    return new ModelStepHookRun(runner, input.hooks, input, attempt, live);
  }

  /** The opening's start hooks (the first model call of a run or turn), before anything else. */
  async open(conversation: Conversation): Promise<void> {
    const { opening } = this.context;
    if (!opening) return;
    const base = this.base();
    const lastUserText = lastUserMessage(conversation.messages);
    const outcome = await whileHeartbeating(
      () =>
        opening.kind === 'run'
          ? this.runner.observe('run-start', this.context, { ...base, task: lastUserText })
          : this.runner.observe('turn-start', this.context, { ...base, turn: opening.turn, message: lastUserText }),
      this.live,
    );
    this.settle(outcome);
  }

  /** Before-model hooks, with the prompt the model is about to get. */
  async beforeCall(system: string, messages: readonly Message[]): Promise<void> {
    const purpose = this.purpose();
    const event = { ...this.base(), step: this.input.step, purpose, model: this.input.model, system, messages };
    this.settle(await whileHeartbeating(() => this.runner.observe('before-model', this.context, event), this.live));
  }

  /** Whether live text must not stream: after-model hooks may redact it, and the live view must not show what they remove. */
  holdsText(): boolean {
    return this.runner.has('after-model', this.context.agent);
  }

  /** After-model hooks: the text to record (what they removed never leaves the activity). */
  afterModel(reply: { text: string; toolCalls: ToolCall[]; usage: Usage }): Promise<string> {
    return whileHeartbeating(async () => {
      const changed = await this.runner.changeText(this.context, {
        ...this.base(),
        step: this.input.step,
        purpose: this.purpose(),
        model: this.input.model,
        text: reply.text,
        toolCalls: reply.toolCalls,
        usage: reply.usage,
      });
      this.settle(changed);
      return changed.text;
    }, this.live);
  }

  /** Before-tool decisions for the reply's calls to this agent's tools, and the step's hook report. */
  decideCalls(toolCalls: readonly ToolCall[]): Promise<ModelStepHookReport> {
    return whileHeartbeating(() => this.decisions(toolCalls), this.live);
  }

  private async decisions(toolCalls: readonly ToolCall[]): Promise<ModelStepHookReport> {
    const toolDecisions: Record<string, ToolDecision> = {};
    const failed: HookFailureReport[] = [];
    const injectedNames = Object.keys(this.input.injectedToolArgs);
    for (const call of toolCalls.filter((candidate) => this.isAgentTool(candidate.name))) {
      const { executable, injected } = splitInjectedArgs(call.args, injectedNames);
      const outcome = await this.runner.decideToolCall(this.context, {
        ...this.base(),
        step: this.input.step,
        call: { ...call, args: executable },
        injectedArgs: injected,
      });
      this.ignored.push(...outcome.ignored);
      if (outcome.failed) failed.push(outcome.failed);
      if (outcome.decision) toolDecisions[call.id] = outcome.decision;
    }
    logHookFailures(failed, 'failed');
    logHookFailures(this.ignored, 'ignored');
    return {
      points: this.runner.points(this.context.agent),
      ...(Object.keys(toolDecisions).length > 0 ? { toolDecisions } : {}),
      ...(this.ignored.length > 0 ? { failures: [...this.ignored] } : {}),
    };
  }

  /** What a step that returns without calling the model (over the budget) reports. */
  report(): ModelStepHookReport {
    logHookFailures(this.ignored, 'ignored');
    return { points: this.runner.points(this.context.agent), ...(this.ignored.length > 0 ? { failures: [...this.ignored] } : {}) };
  }

  /** Error hooks for a failed model call; their own failures are only logged (the step fails anyway). */
  async failed(error: { code: string; message: string }): Promise<void> {
    const event = { ...this.base(), step: this.input.step, where: 'model' as const, errorType: error.code, message: error.message };
    const outcome = await whileHeartbeating(() => this.runner.observe('error', { ...this.context, onError: 'ignore' }, event), this.live);
    logHookFailures(outcome.ignored, 'ignored');
  }

  /** Ignored failures are kept for the report; a failure under `fail` ends the step. */
  private settle(outcome: { ignored: HookFailureReport[]; failed: HookFailureReport | null }): void {
    this.ignored.push(...outcome.ignored);
    if (outcome.failed) {
      logHookFailures([outcome.failed], 'failed');
      throw hookFailedFailure(outcome.failed);
    }
  }

  private base() {
    return hookEventBase(this.context, this.attempt);
  }

  private purpose(): 'executor' | 'planner' {
    return this.input.purpose === 'planner' ? 'planner' : 'executor';
  }

  /** A call to one of this agent's tools (worker, sub-agent or MCP tools; not a handoff, not an unknown name). */
  private isAgentTool(name: string): boolean {
    if (this.input.toolNames.includes(name)) return true;
    return splitMcpToolName(name) !== null && (this.input.extraToolSpecs ?? []).some((spec) => spec.name === name);
  }
}

function lastUserMessage(messages: readonly Message[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'user') return message.content;
  }
  return '';
}
