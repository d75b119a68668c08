// The register of every patch id the workflow code consults: what each changed and when, oldest first.

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

/** A handoff gives the new execution the target agent's status and skill sources as search attributes. */
export const HANDOFF_SEARCH_ATTRIBUTES_PATCH = 'handoff-search-attributes';
/** Temporal retries only lost workers and timeouts (without limit); the workflow retries the call's own failures. */
export const UNBOUNDED_INFRASTRUCTURE_RETRIES_PATCH = 'unbounded-infrastructure-retries';
/** Continue-as-new carries the conversation by reference and bounded tails of tool results and events. */
export const BOUNDED_CONTINUATION_PATCH = 'bounded-continuation';
/** A closing execution sets `AgentStatus` to `failed` or `continued`. */
export const STATUS_ON_CLOSE_PATCH = 'status-on-close';
/** A signal payload that fails validation is ignored, even one the older checks accepted. */
export const VALIDATED_SIGNALS_PATCH = 'validated-signals';
/** A child workflow id longer than a cluster accepts is shortened (its start kept, a hash appended). */
export const BOUNDED_CHILD_IDS_PATCH = 'bounded-child-ids';

/** `runAgent` / `startAgent` in a user's workflow ask whether the namespace has the child's search attributes first. */
export const RUN_AGENT_SEARCH_ATTRIBUTES_PATCH = 'run-agent-search-attributes';
/** A sub-agent run of a parent with skill sources carries them as `AgentSkillSources` (the skills watcher finds it). */
export const SUBAGENT_SKILL_SOURCES_PATCH = 'subagent-skill-sources';
/** Lifecycle hooks act in the workflow: before-tool decisions are applied, and the lifecycle-hooks activity runs. */
export const LIFECYCLE_HOOKS_PATCH = 'lifecycle-hooks';
/** Dynamic instructions: an instructions provider's activity, and template variables filled in static instructions. */
export const DYNAMIC_INSTRUCTIONS_PATCH = 'dynamic-instructions';

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
];

/** The newest patch: recordings made by this code are labelled `since-<its id>`. */
export const NEWEST_PATCH: string = PATCHES[PATCHES.length - 1]!.id;
