// The id of every patch the workflow code consults (`patched(id)`); what each changed is in patches.ts's register.

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
/** A run whose input sets no history limit continues as new at 2,000 events or 2 MiB (DEFAULT_CONTINUE_AS_NEW_POINT), not only when Temporal suggests it. */
export const DEFAULT_CONTINUE_AS_NEW_POINT_PATCH = 'default-continue-as-new-point';
/** Continue-as-new carries the newest tool results by reference (an artifact) and 12 KB of events, not copies. */
export const CARRIED_REFERENCES_PATCH = 'carried-references';
/** Loop detection acts: it nudges a run that repeats a tool call (or a cycle of calls), then stops it with `loop_detected`. */
export const LOOP_DETECTION_PATCH = 'loop-detection';
/** A thread sets `AgentLastActivity` when it accepts a message and when a turn starts or ends. */
export const THREAD_LAST_ACTIVITY_PATCH = 'thread-last-activity';
/** A thread whose `whenClosed` is `reopen` saves its conversation when it closes and returns the input that reopens it. */
export const THREAD_REOPEN_PATCH = 'thread-reopen';
/** A continuing thread stores its recent turns' tool results (one activity) and carries a reference. */
export const THREAD_CARRIED_TURNS_PATCH = 'thread-carried-turns';

/** Runs with a cost limit check it around model calls; runs started with `AgentCostUsd` keep it current. */
export const COST_ACCOUNTING_PATCH = 'cost-accounting';
/** A rule of the agent's `tool_policies` denies a call (an error result) or sends it for approval. */
export const TOOL_POLICIES_PATCH = 'tool-policies';

/** A model step whose retries ran out fails the run with `ModelRetriesExhausted` (the last failure as its cause). */
export const MODEL_RETRIES_EXHAUSTED_PATCH = 'model-retries-exhausted';
/** Lifecycle hooks act in the workflow: before-tool decisions are applied, and the lifecycle-hooks activity runs. */
export const LIFECYCLE_HOOKS_PATCH = 'lifecycle-hooks';
/** Dynamic instructions: an instructions provider's activity, and template variables filled in static instructions. */
export const DYNAMIC_INSTRUCTIONS_PATCH = 'dynamic-instructions';
/** A model call of an agent with `provider_limits` waits for a time from the shared limiter workflow, and reports its usage and 429s to it. */
export const PROVIDER_LIMITS_PATCH = 'provider-limits';
/** A run of an agent with `max_concurrent_runs` (or started with `concurrency`) holds a slot of the shared slots workflow from before its first step to its end. */
export const CONCURRENCY_CAPS_PATCH = 'concurrency-caps';
/** Model calls besides steps go through the provider limiter: compaction's summary call, and an instructions provider's own (it is told the limits). */
export const PROVIDER_LIMITED_CALLS_PATCH = 'provider-limited-calls';
/** A fork given edits passes them to its first activity, which applies them to the origin's conversation. */
export const FORK_EDITS_PATCH = 'fork-edits';
/** A step's helpers return at once when they have nothing to do, and its calls make fewer promises (lean-steps.ts): the same commands, in fewer microtask turns. */
export const LEAN_STEPS_PATCH = 'lean-steps';
