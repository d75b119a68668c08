import { z } from 'zod';
import { AgentConfigError } from '../protocol/errors';
import { isDuration, parseDuration } from './duration';
import { knownContextWindow } from './context-windows';
import { agentPricingSchema, costLimitSchema } from './pricing-schema';
import { DEFAULT_LOOP_DETECTION, parallelSubagentProblems } from './agent-config-rules';
import { toolPolicyProblems, toolPolicySchema } from './tool-policy-schema';
import { providerLimitSchema, providerLimitsSchema } from './provider-limits-schema';
import { maxConcurrentRunsSchema } from './concurrency-schema';
import { duplicateNameProblems } from './duplicate-names';
import { hitlToolProblems } from './hitl-tool-names';
import { AGENT_DOORS } from '../protocol/agent-offers';
import { INSTRUCTIONS_TEMPLATE_VARIABLES, unknownTemplateVariables } from './instructions-template';

/**
 * The serialisable agent configuration: every field, default and range of the seeds' AgentConfig,
 * plus the names this runtime needs (tools, handoffs, output type). It travels as workflow input,
 * so it holds no functions and never a secret. Workflows import its *type* only.
 */

const MODEL_PATTERN = /^[a-z][a-z0-9-]*:\S.*$/;
const MODEL_MESSAGE = 'must look like "provider:model", for example "openai:gpt-4o" or "scripted:demo"';
/** Conservative property names that every provider's tool-schema dialect accepts. */
const PROPERTY_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
const BUDGET_PATTERN = /^(per-message|limit:(\d{1,3}))$/;

const DURATION_MESSAGE = 'must be a duration such as 30s, 15m, 4h or 3d';
/** The shortest timeout a run accepts: shorter ones time out healthy activities. */
const MINIMUM_TIMEOUT_MS = 1_000;
const timeoutDuration = z
  .string()
  .refine(isDuration, DURATION_MESSAGE)
  .refine((text) => !isDuration(text) || parseDuration(text) >= MINIMUM_TIMEOUT_MS, 'must be at least 1s');

/**
 * The zod schema of an agent's `timeouts` (durations; each optional, the runtime's defaults fill the
 * rest): `model_step` and `tool` bound one attempt (start to close), `heartbeat` is how long an
 * activity may go without a heartbeat before it is retried on another worker (a dead worker's
 * step moves after about this long). Options of `startRun` / `run` override these.
 * @example
 * parseAgentConfig({ name: 'payments', tools: ['refund'], timeouts: { heartbeat: '5s', tool: '2m' } });
 */
export const runTimeoutsSchema = z.strictObject({
  model_step: timeoutDuration.optional(),
  tool: timeoutDuration.optional(),
  heartbeat: timeoutDuration.optional(),
});

/** An agent's `timeouts`, as written: durations such as `10s` or `5m`. */
export type RunTimeoutsConfig = z.output<typeof runTimeoutsSchema>;

const modelString = z.string().regex(MODEL_PATTERN, MODEL_MESSAGE);
const toolName = z.string().regex(TOOL_NAME_PATTERN, 'must be 1-64 letters, digits, "_", "." or "-"');

const budgetAwareness = z.string().refine((value) => {
  const match = BUDGET_PATTERN.exec(value);
  return match !== null && (match[2] === undefined || Number(match[2]) <= 100);
}, 'must be "per-message" or "limit:<0-100>"');

/**
 * The zod schema of one entry of an agent's `mcp_servers`: a command for stdio, or a URL for
 * streamable HTTP (exactly one). No secret values here (the config travels in workflow inputs):
 * `env_from_worker` names worker environment variables to pass on.
 * @example
 * import { mcpServerSchema } from 'durable-agents';
 *
 * const github = mcpServerSchema.parse({
 *   name: 'github',
 *   command: 'npx',
 *   args: ['-y', '@modelcontextprotocol/server-github'],
 *   env_from_worker: ['GITHUB_TOKEN'],
 * });
 */
export const mcpServerSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z][A-Za-z0-9-]{0,31}$/, 'must be 1-32 letters, digits or "-", starting with a letter'),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env_from_worker: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).default([]),
    url: z.url().optional(),
  })
  .refine((server) => (server.command === undefined) !== (server.url === undefined), 'needs exactly one of command (stdio) or url (streamable HTTP)');

/**
 * The zod schema of an agent's `loop_detection` when it is on: a run that makes the same tool call
 * (or the same cycle of up to `max_cycle_length` calls) more than `max_repeats` times in a row is
 * nudged once, then stopped with `loop_detected` (docs/loop-detection.md has the exact rule).
 * @example
 * parseAgentConfig({ name: 'researcher', max_steps: 60, loop_detection: { max_repeats: 4 } });
 * parseAgentConfig({ name: 'poller', loop_detection: false }); // off
 */
export const loopDetectionSchema = z.strictObject({
  max_repeats: z.number().int().min(1).max(100).default(DEFAULT_LOOP_DETECTION.max_repeats),
  max_cycle_length: z.number().int().min(1).max(5).default(DEFAULT_LOOP_DETECTION.max_cycle_length),
});

/** One MCP server of an agent, validated, with `args` and `env_from_worker` defaulted to `[]`. */
export type McpServerConfig = z.output<typeof mcpServerSchema>;

/**
 * The zod schema of an agent config. `parse` fills every default; unknown fields are errors.
 * Prefer `parseAgentConfig`, which throws an `AgentConfigError` with one line per invalid field;
 * use the schema to compose it into your own schemas or to derive JSON Schema for an editor.
 * @example
 * import { z } from 'zod';
 * import { agentConfigSchema } from 'durable-agents';
 *
 * const result = agentConfigSchema.safeParse({ name: 'helper', max_steps: 0 });
 * if (!result.success) console.error(result.error.issues); // max_steps: too small
 * const editorSchema = z.toJSONSchema(agentConfigSchema, { io: 'input' });
 */
export const agentConfigSchema = z
  .strictObject({
    name: z.string().min(1, 'is required').max(128),
    model: modelString.default('openai:gpt-4o'),
    instructions: z.string().default(''),
    temperature: z.number().min(0).max(2).default(1),
    max_tokens: z.number().int().positive().nullable().default(null),
    max_steps: z.number().int().min(1).default(10),
    /** Attempts of one model step before the run gives up (the activity retry policy). */
    max_retries: z.number().int().min(1).max(20).default(3),
    tools: z.array(toolName).default([]),
    handoffs: z.array(z.string().min(1)).default([]),
    /** JSON Schema of a structured final answer; null for plain text. */
    output_type: z.record(z.string(), z.unknown()).nullable().default(null),
    planning_enabled: z.boolean().default(false),
    planning_model: modelString.nullable().default(null),
    planning_instructions: z.string().default(''),
    budget_awareness: budgetAwareness.nullable().default(null),
    /** Context window in tokens, for models the built-in table does not know. */
    context_window: z.number().int().min(256).nullable().default(null),
    hitl_tools: z.array(toolName).default([]),
    /**
     * Tools whose approval asks the decider to confirm a second time (a deploy, a payment):
     * approval requests of their calls carry `dangerous: true` (docs/hitl.md). Absent: none (and the config's hash stays as before).
     */
    dangerous_tools: z.array(toolName).optional(),
    /** How long a gated tool call waits for a human decision before it times out. */
    hitl_timeout: z.string().refine(isDuration, DURATION_MESSAGE).default('24h'),
    /**
     * Only decisions carrying a proof of who decided (from the gateway, the console or
     * `issueDecisionProof`), checked by the workers, apply; others are refused and recorded
     * (docs/hitl.md, "Verified decisions"). Absent: any decision applies (and the config's hash stays as before).
     */
    require_verified_decisions: z.boolean().optional(),
    emit_mcp_progress: z.boolean().default(true),
    injected_tool_args: z.record(z.string().regex(PROPERTY_NAME_PATTERN, 'must be a valid property name'), z.string()).default({}),
    mcp_servers: z.array(mcpServerSchema).default([]),
    /** Skill sources (folders or git URLs) whose skills this agent follows while it runs. */
    skill_sources: z.array(z.string().min(1)).default([]),
    /** Which skills of those sources are active (null: all of them). */
    skills: z.array(z.string()).nullable().default(null),
    /** How the instructions are rebuilt from the active skills: appended as a list, or not at all. */
    instructions_builder: z.enum(['skill-list', 'none']).default('skill-list'),
    /** Tool results longer than this (characters) go to the artifact store; the history keeps a preview. */
    offload_threshold: z.number().int().min(1_000).default(16_000),
    allow_parallel_subagents: z.boolean().default(false),
    max_parallel_subagents: z.number().int().min(1).max(7).default(3),
    /** Agents the workers define that `spawn_subagents` jobs may name (`agent`); absent: none (and the config's hash stays as before). */
    subagents: z.array(z.string().min(1).max(128)).optional(),
    /**
     * Memory across runs and threads (docs/memory.md): the agent gets the `remember`, `recall` and
     * `forget` tools over the memory of the resource its run is for (`startRun({ resourceId })`,
     * `run --resource`). A run of such an agent without a resource id is refused before it starts.
     */
    memory: z.boolean().default(false),
    /**
     * The instructions provider (registered on the workers under this name) that writes this agent's
     * instructions at the start of each run and thread turn; `instructions` is the fallback
     * (docs/hooks.md). Null: the static instructions.
     */
    instructions_provider: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1-64 letters, digits, "_", ".", ":" or "-"')
      .nullable()
      .default(null),
    /** What a worker's hook that throws does (docs/hooks.md): `fail` the call it belongs to (default), or be reported and `ignore`d. */
    hook_errors: z.enum(['fail', 'ignore']).default('fail'),
    /** Activity timeouts of this agent's runs (`model_step`, `tool`, `heartbeat`); unset ones keep the runtime's defaults. */
    timeouts: runTimeoutsSchema.default({}),
    /** Prices of this agent's models (USD per million tokens), over the worker's table (docs/observability.md). */
    pricing: agentPricingSchema,
    /** USD a run may spend (a thread: each turn); it stops with `cost_limit` before a call that could pass it. */
    cost_limit: costLimitSchema,
    /** USD a thread may spend over all its turns. */
    thread_cost_limit: costLimitSchema,
    /** Nudge, then stop, a run that repeats a tool call or a cycle of calls; `false` turns it off. */
    loop_detection: z
      .union([z.literal(false), loopDetectionSchema], { error: 'must be false (off) or { max_repeats, max_cycle_length }' })
      .default({ ...DEFAULT_LOOP_DETECTION }),
    /** Rules by tool name pattern and argument condition: allow, deny or require an approval (docs/tool-policies.md). */
    tool_policies: z.array(toolPolicySchema).default([]),
    /** Requests and tokens per minute by model, shared by every run of the task queue (docs/provider-limits.md). */
    provider_limits: providerLimitsSchema,
    /** At most this many runs of this agent at once on the task queue; the others wait, queued (docs/provider-limits.md). */
    max_concurrent_runs: maxConcurrentRunsSchema,
    /** What the agent does, in a sentence or two: the description MCP hosts and A2A callers see (docs/interop.md). Absent: none (and the config's hash stays as before). */
    description: z.string().trim().min(1).max(2_000).optional(),
    /**
     * The doors that offer this named agent to other programs (docs/interop.md): `http` (the gateway),
     * `mcp` (the MCP server), `a2a` (the A2A server). Absent: every door; `[]`: none.
     */
    expose: z.array(z.enum(AGENT_DOORS)).optional(),
  })
  .superRefine((config, context) => {
    for (const problem of duplicateNameProblems(config)) context.addIssue({ code: 'custom', ...problem });
    if (config.budget_awareness !== null && config.context_window === null && knownContextWindow(config.model) === null) {
      context.addIssue({
        code: 'custom',
        path: ['context_window'],
        message: `is required with budget_awareness: the context window of '${config.model}' is not in the built-in table`,
      });
    }
    for (const problem of toolPolicyProblems(config)) context.addIssue({ code: 'custom', path: problem.path, message: problem.message });
    for (const problem of parallelSubagentProblems(config)) context.addIssue({ code: 'custom', ...problem });
    for (const [field, text] of [
      ['instructions', config.instructions],
      ['planning_instructions', config.planning_instructions],
    ] as const) {
      const unknown = unknownTemplateVariables(text);
      if (unknown.length > 0) {
        context.addIssue({
          code: 'custom',
          path: [field],
          message: `uses unknown template variable(s) ${unknown.map((name) => `{{${name}}}`).join(', ')} (known: ${Object.keys(
            INSTRUCTIONS_TEMPLATE_VARIABLES,
          )
            .map((name) => `{{${name}}}`)
            .join(', ')})`,
        });
      }
    }
    for (const problem of hitlToolProblems(config)) context.addIssue({ code: 'custom', path: problem.path, message: problem.message });
  });

/** A validated agent config with every default filled in. */
export type AgentConfig = z.output<typeof agentConfigSchema>;
/** What a user writes: only `name` is required. */
export type AgentConfigInput = z.input<typeof agentConfigSchema>;

/**
 * Validates a config and fills its defaults.
 * @throws AgentConfigError naming every invalid field (`source` names the file, when there is one):
 * a config that is empty or not a mapping says so, an unknown field names the closest known one
 * ("max_stepz: unknown field; did you mean max_steps?").
 * @example parseAgentConfig({ name: 'helper', tools: ['get_weather'] })
 */
export function parseAgentConfig(input: unknown, source?: string): AgentConfig {
  const where = source ? ` in ${source}` : '';
  const notAMapping = rootShapeProblem(input);
  if (notAMapping) throw new AgentConfigError(`Invalid agent config${where}:\n  ${notAMapping}`, [notAMapping]);
  const result = agentConfigSchema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => unknownFieldProblem(issue.path, key));
    const field = issue.path.length > 0 ? issue.path.join('.') : '(root)';
    return [`${field}: ${issue.message}`];
  });
  throw new AgentConfigError(`Invalid agent config${where}:\n  ${problems.join('\n  ')}`, problems);
}

/** An empty config, a list or a single value where the fields should be. */
function rootShapeProblem(input: unknown): string | null {
  const expected = 'it must be a mapping of fields (name: ..., model: ..., tools: [...])';
  if (input === null || input === undefined) return `(root): the config is empty: ${expected}, at least a name`;
  if (Array.isArray(input)) return `(root): the config is a list: ${expected}, not a list`;
  if (typeof input !== 'object') return `(root): the config is a single ${typeof input}: ${expected}`;
  return null;
}

/** "max_stepz: unknown field; did you mean max_steps?" (the known fields of that place when none is close). */
function unknownFieldProblem(path: PropertyKey[], key: string): string {
  const known = knownFieldsAt(path);
  const field = [...path, key].join('.');
  const closest = closestName(key, known);
  if (closest) return `${field}: unknown field; did you mean ${closest}?`;
  return `${field}: unknown field${known.length > 0 ? ` (known here: ${known.join(', ')})` : ''}`;
}

function knownFieldsAt(path: PropertyKey[]): string[] {
  if (path.length === 0) return Object.keys(agentConfigSchema.shape);
  if (path[0] === 'timeouts') return Object.keys(runTimeoutsSchema.shape);
  if (path[0] === 'mcp_servers') return Object.keys(mcpServerSchema.shape);
  if (path[0] === 'loop_detection') return Object.keys(loopDetectionSchema.shape);
  if (path[0] === 'tool_policies') return Object.keys(toolPolicySchema.shape);
  if (path[0] === 'provider_limits' && path.length === 2) return Object.keys(providerLimitSchema.shape);
  return [];
}

/** The known name closest to `name` (edits, a swap of two letters counting as one), if it is close. */
function closestName(name: string, known: string[]): string | null {
  const normalised = (text: string) => text.toLowerCase().replace(/-/g, '_');
  const limit = name.length <= 4 ? 1 : name.length <= 10 ? 2 : 3;
  let best: { name: string; distance: number } | null = null;
  for (const candidate of known) {
    const distance = editDistance(normalised(name), normalised(candidate));
    if (distance <= limit && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name ?? null;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = value;
    }
  }
  return rows[a.length]![b.length]!;
}

// The pure helpers over a parsed config live in a zod-free module, so that workflow code can use
// them without loading zod (and building these schemas) in every workflow it starts.
export { budgetMode, contextWindowOf, describeAgent, resourceIdProblems, splitModelString } from './agent-config-rules';
export type { AgentDescription, BudgetMode } from './agent-config-rules';
