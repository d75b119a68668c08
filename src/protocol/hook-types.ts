// What crosses between a run and the worker's lifecycle hooks and instructions providers (sandbox-safe types, names and wording).
import type { ToolCall, Usage } from './messages';
import type { ApprovalOutcome } from './run-types';
import type { CallDecider } from './call-deciders';
import type { ProviderLimitConfig } from '../config/provider-limits-schema';

/**
 * The points of a run where a worker's hooks run (docs/hooks.md): the start and end of a run and
 * of a thread's turn, before and after each model call and each tool call, when an approval is
 * decided, at a handoff, and on an error.
 * @example
 * import { HOOK_POINTS, type HookPoint } from 'durable-agents/worker';
 *
 * const isPoint = (name: string): name is HookPoint => (HOOK_POINTS as readonly string[]).includes(name);
 */
export const HOOK_POINTS = [
  'run-start',
  'run-end',
  'turn-start',
  'turn-end',
  'before-model',
  'after-model',
  'before-tool',
  'after-tool',
  'approval-decided',
  'handoff',
  'error',
] as const;

/** One of `HOOK_POINTS`. */
export type HookPoint = (typeof HOOK_POINTS)[number];

/** What a hook that throws does to the call it belongs to (the agent config's `hook_errors`). */
export type HookErrorPolicy = 'fail' | 'ignore';

/**
 * What an activity needs to run a run's hooks: whose run it is, the agent's error policy, and the
 * run's resource and thread. Model steps carry it on the first call of an execution and of a turn,
 * and on every call once a worker said it has hooks for the agent; tool activities when the
 * worker has tool hooks.
 */
export interface HookContext {
  agent: string;
  onError: HookErrorPolicy;
  resourceId?: string;
  threadId?: string;
}

/** Set on the first model call of a run or of a thread turn: the run's (turn's) start hooks run first, in that activity. */
export type HookOpening = { kind: 'run' } | { kind: 'turn'; turn: number };

/** What a model step's input adds for hooks. */
export interface ModelStepHooks extends HookContext {
  opening?: HookOpening;
}

/**
 * A before-tool decision, taken in the model step that asked for the call and recorded with its
 * result (so it is taken once and replayed, never asked again): the call runs (with `args` when a
 * hook changed them), is denied (an error result the model sees), waits for an approval first, or
 * failed (a hook threw and the agent's `hook_errors` is `fail`: an error result, the tool does not run).
 */
export interface ToolDecision {
  action: 'allow' | 'deny' | 'require_approval' | 'fail';
  /** The hook that decided (for `allow`: the last one that changed the arguments, or else the last that allowed explicitly). */
  hook: string;
  /** The executable arguments the call runs with, when a hook changed them (injected args stay as the model gave them). */
  args?: Record<string, unknown>;
  /** Why (the hook's reason, or the failure). */
  reason?: string;
}

/** A hook that threw, reported with its name and point (for a `hook-failed` event and the worker's log). */
export interface HookFailureReport {
  hook: string;
  point: HookPoint;
  message: string;
}

/** "hook 'redact-emails' (after-model) failed: …": how a failure is described wherever it is reported. */
export function describeHookFailure(report: HookFailureReport): string {
  return `hook '${report.hook}' (${report.point}) failed: ${report.message}`;
}

/** What a model step's result adds when the worker has hooks for the agent: absent otherwise. */
export interface ModelStepHookReport {
  /** The points this worker has hooks at for this agent. */
  points: HookPoint[];
  /** Before-tool decisions by call id, for calls a hook did not simply let through. */
  toolDecisions?: Record<string, ToolDecision>;
  /** Hooks that threw and were ignored (`hook_errors: ignore`). */
  failures?: HookFailureReport[];
}

/** A run's or a turn's end, as the end hooks get it. */
export interface EndFacts {
  stopReason: string;
  output: string;
  /** Set when `output` was cut to fit the activity's input. */
  outputTruncated?: true;
  steps: number;
  usage: Usage;
  /** Set when the run (turn) failed. */
  failure?: { type: string | null; message: string };
}

/** A gated call's decision, as the approval-decided hooks get it. */
export interface ApprovalDecidedFacts {
  approvalId: string;
  call: ToolCall;
  outcome: ApprovalOutcome;
  decidedBy: string | null;
  reason: string | null;
  /** What required the approval besides `hitl_tools`: the hook and the tool-policy rule that did (`ApprovalRequest.requiredBy`). */
  requiredBy?: CallDecider[];
}

/** A handoff, as the handoff hooks get it. */
export interface HandoffFacts {
  from: string;
  to: string;
}

/** A failure, as the error hooks get it: where it happened, its stable code (when it has one) and message. */
export interface ErrorFacts {
  where: 'model' | 'tool' | 'run' | 'turn';
  errorType: string | null;
  message: string;
  toolName?: string;
}

/** An event of the workflow's own that hooks are told about, through the lifecycle-hooks activity. */
export type LifecycleEvent =
  | ({ point: 'run-end' } & EndFacts)
  | ({ point: 'turn-end'; turn: number } & EndFacts)
  | ({ point: 'approval-decided' } & ApprovalDecidedFacts)
  | ({ point: 'handoff' } & HandoffFacts)
  | ({ point: 'error'; where: 'run' | 'turn' } & ErrorFacts);

/** The input of the `runLifecycleHooks` activity: the events of one moment of the run, in order. */
export interface LifecycleHooksInput {
  context: HookContext;
  step: number;
  events: LifecycleEvent[];
}

/** Its result: the hooks that threw (the workflow applies the agent's `hook_errors`). */
export interface LifecycleHooksResult {
  failures: HookFailureReport[];
}

/** What an instructions provider is told: the agent, and the run's (or turn's) context. */
export interface InstructionsFacts {
  agent: string;
  /** The run's task, or the thread turn's message (cut at 8,000 characters). */
  task: string;
  /** The turn, in a thread. */
  turn?: number;
  threadId?: string;
  resourceId?: string;
  /** The config's injected tool args (name → description). */
  injectedToolArgs: Record<string, string>;
  /** The agent's static instructions, template variables filled: what the run uses if the provider gives nothing. */
  fallback: string;
}

/** The input of the `resolveInstructions` activity: which provider, and what it is told. */
export interface InstructionsRequest extends InstructionsFacts {
  provider: string;
  /** The agent's `provider_limits`, for the provider's own model calls (`InstructionsContext.withinProviderLimit`). */
  providerLimits?: Record<string, ProviderLimitConfig>;
}

/** What the provider gave, or why the run uses its static instructions. */
export type InstructionsResolution = { instructions: string } | { unavailable: string };
