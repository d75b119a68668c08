// The register of every patch id the workflow code consults: what each changed and when, oldest first.
import {
  COST_ACCOUNTING_PATCH,
  LOOP_DETECTION_PATCH,
  TOOL_POLICIES_PATCH,
  MODEL_RETRIES_EXHAUSTED_PATCH,
  LIFECYCLE_HOOKS_PATCH,
  DYNAMIC_INSTRUCTIONS_PATCH,
  THREAD_LAST_ACTIVITY_PATCH,
  THREAD_REOPEN_PATCH,
  THREAD_CARRIED_TURNS_PATCH,
  PROVIDER_LIMITS_PATCH,
  CONCURRENCY_CAPS_PATCH,
  PROVIDER_LIMITED_CALLS_PATCH,
  FORK_EDITS_PATCH,
  LEAN_STEPS_PATCH,
} from './patch-ids';
import type { PatchRecord } from './patch-record';
import { FIRST_PATCHES } from './patches-first';

/** The ids live in patch-ids.ts (workflow code needs only them); this module re-exports them with the register. */
export * from './patch-ids';
export type { PatchHistories, PatchRecord } from './patch-record';

/** Every patch, oldest first: a recording is labelled with the newest one (see test/histories/README.md). */
export const PATCHES: readonly PatchRecord[] = [
  ...FIRST_PATCHES,
  {
    id: COST_ACCOUNTING_PATCH,
    added: '2026-11-24',
    changed:
      'A run with `cost_limit` (a thread: `cost_limit` per turn, `thread_cost_limit`) stops with `cost_limit` before a model call when nothing is left, gives the model step what is left (the step refuses a call whose worst case is more) and stops after a call that passed the limit and asks for tools; its sub-agents get what is left as their `cost_limit`. A run started with `AgentCostUsd` writes its cost into it with the status upserts it makes anyway (completed, continued, failed; a thread after each turn), and starts its sub-agents with it. Consulted only by runs with a cost limit or with `AgentCostUsd`; before, neither existed.',
    stage: 'patched',
    histories: {
      with: ['cost-rollup/since-cost-accounting.execution-1-of-3.json', 'cost-limit-before-call/since-cost-accounting.json', 'cost-limit-after-call/since-cost-accounting.json', 'thread-cost-limit/since-cost-accounting.json'],
      without: [],
      missing: { without: 'runs before it had neither a cost limit nor AgentCostUsd, so none went through its code' },
    },
  },
  {
    id: LOOP_DETECTION_PATCH,
    added: '2026-11-24',
    changed:
      'A run whose tool calls repeat the same call (or cycle of calls) more than loop_detection.max_repeats times in a row gets a message saying so after that step, and if a loop is found again it stops with `loop_detected` before the step\'s calls run. Before, such a run went on until max_steps. Consulted only when a loop is found.',
    stage: 'patched',
    histories: {
      with: ['loop-stopped/since-loop-detection.json', 'loop-nudged/since-loop-detection.json', 'loop-default-threshold/since-loop-detection.json', 'thread-loop-stopped/since-loop-detection.json'],
      without: ['loop-default-threshold/since-bounded-child-ids.json'],
    },
  },
  {
    id: TOOL_POLICIES_PATCH,
    added: '2026-11-24',
    changed:
      'A call that a rule of tool_policies denies gets an error result (ToolDenied) without running; a call a rule sends for approval waits for one as hitl_tools calls do. Before, workers ignored tool_policies (a config from a newer client). Consulted only when a rule changes what the call does.',
    stage: 'patched',
    histories: {
      with: ['policy-deny/since-tool-policies.json', 'policy-approval/since-tool-policies.json', 'hooks-policy-approval/since-dynamic-instructions.json'],
      without: ['policy-deny/since-loop-detection.json', 'policy-approval/since-loop-detection.json'],
    },
  },
  {
    id: MODEL_RETRIES_EXHAUSTED_PATCH,
    added: '2026-11-24',
    changed:
      'A model step whose retryable failures used up max_retries tries fails the run with ModelRetriesExhausted (details: attempts, max_retries, the last failure\'s type; cause: the last failure); before, with the last failure\'s own type (ModelServerError, ModelRateLimited, ...). Consulted only when the retries ran out.',
    stage: 'patched',
    histories: {
      with: ['model-retries-exhausted/since-model-retries-exhausted.json'],
      without: ['model-retries-exhausted/since-tool-policies.json'],
    },
  },
  {
    id: LIFECYCLE_HOOKS_PATCH,
    added: '2026-11-24',
    changed:
      'A before-tool decision a model step recorded is applied (a denied or failed call gets an error result and no activity, a changed call runs with its new arguments, a call may wait for an approval first), and a `runLifecycleHooks` activity runs the run-end, turn-end, approval-decided, handoff and error hooks. Consulted only when a model step said its worker has such hooks; runs recorded before had none.',
    stage: 'patched',
    histories: {
      with: [
        'hooks-redaction/since-dynamic-instructions.json',
        'hooks-tool-decisions/since-dynamic-instructions.json',
        'hooks-failing/since-dynamic-instructions.json',
        'hooks-ignored/since-dynamic-instructions.json',
        'hooks-errors/since-dynamic-instructions.json',
        'hooks-thread/since-dynamic-instructions.json',
        'hooks-handoff/since-dynamic-instructions.execution-1-of-2.json',
        'hooks-policy-approval/since-dynamic-instructions.json',
      ],
      without: [],
      missing: { without: 'no run recorded before the patch has a model step that reported hooks: only this code reports them, so the patched code is never reached without the marker' },
    },
  },
  {
    id: DYNAMIC_INSTRUCTIONS_PATCH,
    added: '2026-11-24',
    changed:
      'An agent with `instructions_provider` asks it for its instructions (a `resolveInstructions` activity) at the start of each run and thread turn, and template variables ({{agent_name}}, {{date}}, ...) in static instructions are filled. Consulted only for such configs: `instructions_provider` did not exist before, and instructions with `{{…}}` were taken literally, as runs recorded before keep doing.',
    stage: 'patched',
    histories: {
      with: [
        'instructions-provider/since-dynamic-instructions.json',
        'instructions-provider-continued/since-dynamic-instructions.execution-1-of-3.json',
        'instructions-template/since-dynamic-instructions.json',
        'instructions-thread/since-dynamic-instructions.json',
      ],
      without: ['instructions-template/since-subagent-skill-sources.json'],
    },
  },
  {
    id: THREAD_LAST_ACTIVITY_PATCH,
    added: '2026-11-24',
    changed:
      'A thread sets the `AgentLastActivity` search attribute (workflow clock) when it accepts a message that waits, and with `AgentStatus` when a turn starts and when it ends, so stale threads can be listed; before, a thread set `AgentStatus` alone. Only threads that started with the attribute (a namespace set up for it) set it: an older namespace would fail the workflow task.',
    stage: 'patched',
    histories: {
      with: ['thread-last-activity/since-thread-last-activity.json'],
      without: ['thread-turns/since-bounded-child-ids.json'],
    },
  },
  {
    id: THREAD_REOPEN_PATCH,
    added: '2026-11-24',
    changed:
      "A thread created with `whenClosed: 'reopen'` saves its conversation (the `saveConversation` activity) when it closes and returns `reopenWith`, the input a new execution of the same id continues from; clients start that execution with the next message. Consulted only by threads with that setting, which did not exist before: threads that refuse close as before.",
    stage: 'patched',
    histories: {
      with: ['thread-reopen-closed/since-thread-reopen.json', 'thread-reopened/since-thread-reopen.json'],
      without: [],
      missing: { without: 'threads could not be created with whenClosed before this patch, so no history passes its code without the marker' },
    },
  },
  {
    id: THREAD_CARRIED_TURNS_PATCH,
    added: '2026-11-24',
    changed:
      "A thread that continues as new (or closes to be reopened) with recent turns that ran tools stores those turns' tool results in the artifact store (the `storeTurnToolResults` activity) and carries each turn without them (`toolResultsStored`, and `turnToolResults` naming the artifact); `awaitTurn` for such a turn reads them back first (`readTurnToolResults`, once per execution). Before, the 20 recent turns were carried with up to 50 tool results each, which could pass the payload limit. Threads whose recent turns ran no tool carry them as before, with no marker.",
    stage: 'patched',
    histories: {
      with: ['thread-carried-turns/since-thread-carried-turns.execution-2-of-5.json', 'thread-carried-turns/since-thread-carried-turns.execution-4-of-5.json'],
      without: [],
      missing: { without: "no recorded thread continued as new while a recent turn held tool results before this patch (the thread-continued recording continued inside the first turn that ran a tool)" },
    },
  },
  {
    id: PROVIDER_LIMITS_PATCH,
    added: '2026-11-24',
    changed:
      'A model call of an agent whose config has `provider_limits` for its model first asks the shared limiter workflow of its task queue and model for a time (a `reserveModelCall` activity, then a grant signal and a durable timer), reports its token usage after the call, and on a 429 pauses the limiter for every run and asks again (`.limited-N` activity ids) instead of retrying on its own. Consulted only for such configs: `provider_limits` did not exist before.',
    stage: 'patched',
    histories: {
      with: ['provider-limit-wait/since-provider-limits.json', 'provider-limit-429/since-provider-limits.json'],
      without: [],
      missing: { without: 'agent configs could not declare provider_limits before this patch, so no history passes its code without the marker' },
    },
  },
  {
    id: CONCURRENCY_CAPS_PATCH,
    added: '2026-11-24',
    changed:
      'A run of an agent with `max_concurrent_runs`, or started with `concurrency`, asks the shared slots workflow of its task queue and cap for a slot before its first step (`requestConcurrencySlot` activities `concurrency-slot-N`, a grant signal; phase `concurrency_slot`), carries the slots it holds through continue-as-new (`heldSlots`) and signals their release when it ends, however it ends. Consulted only by such runs: neither setting existed before.',
    stage: 'patched',
    histories: {
      with: ['concurrency-slot-wait/since-concurrency-caps.json', 'concurrency-slot-continued/since-concurrency-caps.execution-1-of-2.json', 'concurrency-slot-continued/since-concurrency-caps.execution-2-of-2.json'],
      without: [],
      missing: { without: 'agent configs and starts could not declare a concurrency cap before this patch, so no history passes its code without the marker' },
    },
  },
  {
    id: PROVIDER_LIMITED_CALLS_PATCH,
    added: '2026-11-24',
    changed:
      "Model calls besides steps go through the provider limiter of an agent with `provider_limits`: compaction's summary call of a limited model asks the limiter for a time first (`step-N.compaction.limit`, a grant signal, a durable timer), reports its usage after, and on a 429 pauses the limiter and asks again (`step-N.compaction.limited-2`) instead of retrying on its own; the `resolveInstructions` activity of an agent with an instructions provider is given the agent's `provider_limits`, so the provider's own model calls can wait for the limiter (`InstructionsContext.withinProviderLimit`). Before, compaction called the provider outside the limit and providers knew nothing of it. Consulted only by such runs when they compact or ask their provider.",
    stage: 'patched',
    histories: {
      with: ['provider-limit-compaction/since-provider-limited-calls.json', 'provider-limit-instructions/since-provider-limited-calls.json'],
      without: [],
      missing: { without: 'no recorded run under provider_limits compacted or asked an instructions provider before this patch (provider_limits came the same day, and its recordings do neither)' },
    },
  },
  {
    id: FORK_EDITS_PATCH,
    added: '2026-11-24',
    changed:
      "A fork started with edits (a tool call's result or a message of the origin's conversation replaced: `fork --edit-tool-result`, `--edit-message`) passes them to its first activity (`loadForkOrigin`), which applies them to the conversation it writes. Consulted only by forks with edits, which clients could not start before: every other fork's first activity is as it was.",
    stage: 'patched',
    histories: {
      with: ['fork-edited-tool-result/since-fork-edits.json', 'fork-between-reply-and-calls/since-fork-edits.json'],
      without: [],
      missing: { without: 'forks could not be given edits before this patch, so no history passes its code without the marker' },
    },
  },
  {
    id: LEAN_STEPS_PATCH,
    added: '2026-11-24',
    changed:
      "A step's helpers return at once when they have nothing to do (no continue-as-new due, no skill source to reload, no provider limit), a model call chains its reply with one `.then` where it awaited twice, a tool call's first try has one failure handler instead of a retry loop, and a step with one tool call needs no `Promise.all`: the same commands and inputs, with about 45% fewer promises per step (lean-steps.ts). Before, every helper was awaited, which takes more microtask turns and could order the commands of two coroutines that wake in one activation differently. Consulted at the first step or model call of every execution.",
    stage: 'patched',
    histories: {
      with: [
        'parallel/since-lean-steps.json',
        'tool-retry/since-lean-steps.json',
        'model-retry/since-lean-steps.json',
        'budget-compaction/since-lean-steps.json',
        'approval-mixed/since-lean-steps.json',
        'provider-limit-wait/since-lean-steps.json',
        'subagents-parallel/since-lean-steps.json',
        'thread-turns/since-lean-steps.json',
      ],
      without: [
        'parallel/since-unbounded-infrastructure-retries.json',
        'tool-retry/since-unbounded-infrastructure-retries.json',
        'model-retry/since-unbounded-infrastructure-retries.json',
        'budget-compaction/since-unbounded-infrastructure-retries.json',
        'approval-mixed/since-unbounded-infrastructure-retries.json',
        'provider-limit-wait/since-provider-limits.json',
        'subagents-parallel/since-unbounded-infrastructure-retries.json',
        'thread-turns/since-bounded-child-ids.json',
      ],
    },
  },
];

/** The newest patch: recordings made by this code are labelled `since-<its id>`. */
export const NEWEST_PATCH: string = PATCHES[PATCHES.length - 1]!.id;
