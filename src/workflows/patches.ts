// The register of every patch id the workflow code consults: what each changed and when, oldest first.
import {
  HANDOFF_SEARCH_ATTRIBUTES_PATCH,
  UNBOUNDED_INFRASTRUCTURE_RETRIES_PATCH,
  BOUNDED_CONTINUATION_PATCH,
  STATUS_ON_CLOSE_PATCH,
  VALIDATED_SIGNALS_PATCH,
  BOUNDED_CHILD_IDS_PATCH,
  RUN_AGENT_SEARCH_ATTRIBUTES_PATCH,
  SUBAGENT_SKILL_SOURCES_PATCH,
  DEFAULT_CONTINUE_AS_NEW_POINT_PATCH,
  CARRIED_REFERENCES_PATCH,
  LOOP_DETECTION_PATCH,
  THREAD_LAST_ACTIVITY_PATCH,
  THREAD_REOPEN_PATCH,
  THREAD_CARRIED_TURNS_PATCH,
  COST_ACCOUNTING_PATCH,
  TOOL_POLICIES_PATCH,
  MODEL_RETRIES_EXHAUSTED_PATCH,
  LIFECYCLE_HOOKS_PATCH,
  DYNAMIC_INSTRUCTIONS_PATCH,
  PROVIDER_LIMITS_PATCH,
  CONCURRENCY_CAPS_PATCH,
  PROVIDER_LIMITED_CALLS_PATCH,
  FORK_EDITS_PATCH,
} from './patch-ids';

/** The ids live in patch-ids.ts (workflow code needs only them); this module re-exports them with the register. */
export * from './patch-ids';

/**
 * One `patched()` id. Its lifecycle follows Temporal's patching guide: `patched` (both code paths
 * live), then `deprecated` (`deprecatePatch(id)`, new code only, once no open run can replay
 * without the marker), then removed (the call and this entry go, once no open run carries it).
 */
export interface PatchRecord {
  /** The marker id written to histories; never reused. */
  readonly id: string;
  /** The day the patch was added (UTC, ISO date). */
  readonly added: string;
  /** What runs since the patch do differently, and what runs before it keep doing. */
  readonly changed: string;
  /** Where it is in Temporal's patch lifecycle. */
  readonly stage: 'patched' | 'deprecated';
  /** The recorded histories (test/histories) that show each side: the register test checks their markers. */
  readonly histories: PatchHistories;
}

/**
 * Executions in the replay corpus on each side of a patch, as paths relative to test/histories.
 * `without` ones went through the patched code with no marker (recorded by older code), so they
 * replay the old branch; `with` ones recorded the marker.
 */
export interface PatchHistories {
  readonly with: readonly string[];
  readonly without: readonly string[];
  /** Why a side has no history, when it has none (the register test states it). */
  readonly missing?: { readonly with?: string; readonly without?: string };
}


/** Every patch, oldest first: a recording is labelled with the newest one (see test/histories/README.md). */
export const PATCHES: readonly PatchRecord[] = [
  {
    id: HANDOFF_SEARCH_ATTRIBUTES_PATCH,
    added: '2026-11-22',
    changed: 'A handoff continues as new with the name, `running` status and skill sources as search attributes of the target agent; before, with its name alone, so the skills watcher missed handed-off runs.',
    stage: 'patched',
    histories: {
      with: ['handoff/since-validated-signals.execution-1-of-2.json', 'handoff-target-attributes/since-validated-signals.execution-1-of-2.json', 'long-run-handoff/since-bounded-continuation.execution-4-of-5.json'],
      without: ['handoff/unpatched.execution-1-of-2.json'],
    },
  },
  {
    id: UNBOUNDED_INFRASTRUCTURE_RETRIES_PATCH,
    added: '2026-11-23',
    changed:
      'Model, compaction and tool activities get a retry policy without an attempt limit (only a lost worker or a timeout reaches it) and their own failures come back to the workflow, which retries them within max_retries / the tool try limit (`.try-N` activity ids, durable timers between tries); tool calls carry an idempotency key. Before: Temporal retried everything up to max_retries / 5 attempts.',
    stage: 'patched',
    histories: {
      with: ['model-retry/since-unbounded-infrastructure-retries.json', 'tool-retry/since-unbounded-infrastructure-retries.json', 'budget-compaction/since-unbounded-infrastructure-retries.json', 'mcp-crash/since-unbounded-infrastructure-retries.json'],
      without: ['model-retry/unpatched.json', 'tool-retry/unpatched.json', 'budget-compaction/unpatched.json', 'mcp-crash/unpatched.json', 'provider-stream-retried/since-handoff-search-attributes.json'],
    },
  },
  {
    id: BOUNDED_CONTINUATION_PATCH,
    added: '2026-11-23',
    changed: 'Continue-as-new saves the conversation to the artifact store (a `save-conversation` activity) and carries its id, the tool-result count and a byte-bounded event tail; before, it carried every message inline.',
    stage: 'patched',
    histories: {
      with: ['long-run-handoff/since-bounded-continuation.execution-1-of-5.json', 'long-run-plan-approval-skills/since-bounded-continuation.execution-1-of-4.json', 'handoff/since-validated-signals.execution-1-of-2.json'],
      without: ['handoff/unpatched.execution-1-of-2.json'],
    },
  },
  {
    id: STATUS_ON_CLOSE_PATCH,
    added: '2026-11-23',
    changed: 'An execution upserts `AgentStatus` = `continued` before continue-as-new (and gives the next execution `running`) and `failed` before a deliberate failure; before, it was left `running`.',
    stage: 'patched',
    histories: {
      with: ['status-on-close-failed/since-validated-signals.json', 'status-on-close-continued/since-validated-signals.execution-1-of-3.json', 'handoff/since-validated-signals.execution-1-of-2.json'],
      without: ['status-on-close-failed/since-bounded-continuation.json', 'handoff/unpatched.execution-1-of-2.json'],
    },
  },
  {
    id: VALIDATED_SIGNALS_PATCH,
    added: '2026-11-23',
    changed: 'A signal payload that fails validation is ignored and logged; before, a payload the looser checks accepted was applied as sent. Consulted only when such a payload arrives.',
    stage: 'patched',
    histories: {
      with: ['approval-validated/since-validated-signals.json'],
      without: ['approval-validated/since-bounded-continuation.json'],
    },
  },
  {
    id: BOUNDED_CHILD_IDS_PATCH,
    added: '2026-11-23',
    changed: 'A child workflow id over 255 characters is shortened to its start and a hash of the whole; before, it was used as is. Consulted only for such an id.',
    stage: 'patched',
    histories: {
      with: ['subagents-long-workflow-id/since-bounded-child-ids.json'],
      without: ['subagents-long-workflow-id/since-validated-signals.json'],
    },
  },
  {
    id: RUN_AGENT_SEARCH_ATTRIBUTES_PATCH,
    added: '2026-11-24',
    changed:
      "`runAgent` / `startAgent` (durable-agents/workflow) run the plugin's `checkSearchAttributes` local activity before they start the agent child, and fail the user's workflow with a non-retryable `SearchAttributesMissing` when the namespace lacks the child's search attributes; before, the child start failed the workflow task (`BadSearchAttributes`) again and again. Consulted only when the child runs on the workflow's own task queue. Histories: a user's workflow (test/support/parent-workflows.ts, in the test bundle).",
    stage: 'patched',
    histories: {
      with: ['run-agent/since-subagent-skill-sources.json', 'run-agent-search-attributes-missing/since-subagent-skill-sources.json'],
      without: ['run-agent/since-bounded-child-ids.json'],
    },
  },
  {
    id: SUBAGENT_SKILL_SOURCES_PATCH,
    added: '2026-11-24',
    changed:
      "A sub-agent of a run with skill sources starts with them as the `AgentSkillSources` search attribute, so the skills watcher signals it; before, with `AgentName` and `AgentStatus` only, and a running sub-agent never got skill changes. Consulted only by runs with skill sources.",
    stage: 'patched',
    histories: {
      with: ['subagent-skill-sources/since-subagent-skill-sources.json', 'subagent-skills/since-subagent-skill-sources.json'],
      without: ['subagent-skill-sources/since-bounded-child-ids.json'],
    },
  },
  {
    id: DEFAULT_CONTINUE_AS_NEW_POINT_PATCH,
    added: '2026-11-24',
    changed:
      'A run or thread whose input sets no `historyEventLimit` continues as new at 2,000 events, and one that sets no `historySizeLimitBytes` at 2 MiB of history, so a workflow task that replays the whole history on a worker without the run in its cache stays near 2 s on a busy 2-core worker (docs/long-runs.md); before, only when Temporal suggested it (4 MB or 4,000 events on a default server, where such a task took 5 to 6 s). Consulted only once a run passes that point.',
    stage: 'patched',
    histories: {
      with: ['default-continue-as-new-point/since-default-continue-as-new-point.execution-1-of-2.json'],
      without: [],
      missing: { without: 'no run of the corpus passed 2,000 events or 2 MiB of history in one execution without a limit of its own: the corpus keeps histories small. Runs recorded before the patch carry no marker, so patched() returns false when they replay and they keep waiting for Temporal’s suggestion.' },
    },
  },
  {
    id: CARRIED_REFERENCES_PATCH,
    added: '2026-11-24',
    changed:
      "A run or thread continuing as new stores its newest tool results with the conversation (the `saveConversation` activity's `toolResults`) and carries their artifact id (`toolResultsRef`) and at most 12 KB of events; the continued execution reads the results back (`readCarriedToolResults`) only when a result needs more than its own. Before, it carried the 50 results (up to about 55 KB) and up to 256 KB of events, about 315 KB in all. Consulted at each continue-as-new.",
    stage: 'patched',
    histories: {
      with: ['carried-references/since-carried-references.execution-1-of-3.json', 'carried-references/since-carried-references.execution-2-of-3.json'],
      without: ['long-run-handoff/since-bounded-continuation.execution-1-of-5.json'],
    },
  },
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
];

/** The newest patch: recordings made by this code are labelled `since-<its id>`. */
export const NEWEST_PATCH: string = PATCHES[PATCHES.length - 1]!.id;
