// The register's first patches (2026-11-22 to the carried references of 2026-11-24), oldest first; patches.ts joins them with the later ones.
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
} from './patch-ids';
import type { PatchRecord } from './patch-record';

/** The first patches of the register, oldest first. */
export const FIRST_PATCHES: readonly PatchRecord[] = [
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
];
