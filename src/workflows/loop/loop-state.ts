import type { AgentConfig, McpServerConfig } from '../../config/agent-config';
import type { Message, ToolSpec } from '../../protocol/messages';
import type { RunEvent } from '../../protocol/run-events';
import {
  DEFAULT_TIMEOUTS,
  type ResolvedRunInput,
  type CarriedState,
  type StoredToolResults,
  type HandoffRecord,
  type PlanArtifact,
  type ProviderLimitWait,
  type ConcurrencySlotWait,
  type RunPhase,
  type RunTimeouts,
  type StepBudget,
  type StopReason,
  type ToolResult,
  type UsageSummary,
} from '../../protocol/run-types';
import type { ResolvedThreadInput } from '../../protocol/thread-types';
import { configTimeouts } from '../../config/upgrade-config';
import { configuredTools, toolAllowedByFlags } from '../../config/agent-config-rules';
import { buildSystemPrompt, stepBudget } from '../rules/run-prompts';
import { emptyUsage } from '../rules/usage-totals';
import { summarizeToolResult } from '../rules/tool-result-builders';
import { KEPT_TOOL_RESULTS } from '../../protocol/payload-size';
import { ConversationThreads } from './conversation-threads';
import { EventLog } from './event-log';
import { handoffToolSpecs } from '../rules/handoff-tools';
import { stepLimitOf } from '../../protocol/step-moves';
import { emptyLoopWatch } from '../rules/loop-detection';
import type { LoopWatch } from '../../protocol/loop-watch';
import { RunSkills } from './run-skills';
import { initialRunHooks, type RunHooks } from './run-hooks-state';

/** Events the live log keeps; older ones are trimmed and readers told how many they missed. */
const EVENT_LOG_CAPACITY = 1000;

/** A tool of one of the agent's MCP servers, under its namespaced name. */
export interface McpTool {
  server: McpServerConfig;
  mcpName: string;
  spec: ToolSpec;
}

/**
 * What the step loop needs from the workflow it runs in, and nothing else of it: an agent run's
 * input, or a thread's (whose turn also has a cost base, an interrupt flag). The loop asks
 * `execution.kind` where the two differ, and hands continue-as-new back to the workflow
 * (`continueAs`: a run continues as a run, a thread as a thread, each with its own input).
 */
export type Execution = RunExecution | ThreadExecution;

/** An `agentRun` execution (run/agent-run.ts). */
export interface RunExecution {
  readonly kind: 'run';
  readonly input: ResolvedRunInput;
  /** Continues as new as a run: the same agent (history long), or the one a handoff chose. */
  continueAs(carry: CarriedState, next: AgentConfig): Promise<never>;
}

/** An `agentThread` execution (thread/agent-thread.ts): what its current turn needs besides the loop's state. */
export interface ThreadExecution {
  readonly kind: 'thread';
  readonly input: ResolvedThreadInput;
  /** The thread's cost when the running turn began (a turn's `cost_limit` counts from it). */
  turnCostBase: number | undefined;
  /** A newer message asked the running turn to stop at its next safe point. */
  interruptRequested: boolean;
  /**
   * The Worker Deployment build whose workers last resolved a named agent's definition for this
   * execution (`deployment:build`): every worker of a build offers the same definitions, so turns
   * on that build need not ask again. Undefined: not resolved here yet, or unversioned workers.
   */
  definitionBuild?: string;
  /** Continues as new as a thread, with the thread's own state. */
  continueAs(carry: CarriedState, next: AgentConfig): Promise<never>;
}

/**
 * Everything the step loop knows and changes in one execution, in one place: the modules of the
 * loop read and update this object instead of sharing loose variables. Built from the input alone
 * (deterministic); the queries read it, the loop and the handlers write it. `RunState`
 * (run/run-state.ts) and `ThreadState` (thread/thread-state.ts) are this state with their
 * execution known.
 */
export interface LoopState<Owner extends Execution = Execution> {
  /** The workflow this loop runs in, and what differs between a run and a thread's turn. */
  readonly execution: Owner;
  /** The resource (user, customer) the execution works for: its memory and its tools' scope. */
  readonly resourceId: string | undefined;
  /** The input's config, upgraded to the current schema. */
  readonly config: AgentConfig;
  readonly timeouts: RunTimeouts;
  /** What the run this one continues (continue-as-new or handoff) handed over; undefined on a fresh run. */
  readonly carried: CarriedState | undefined;
  /** Configs of the agents this run may hand off to, by name. */
  readonly agents: Record<string, AgentConfig>;
  /** Index of the task message in the executor conversation; compaction never removes it. */
  readonly taskIndex: number;
  /** The last step this agent may take: its own max_steps after the steps of the agents before it (a thread sets it at each turn). */
  stepLimit: number;
  readonly budget: StepBudget | null;
  readonly injectedArgNames: string[];
  readonly handoffSpecs: readonly ToolSpec[];

  readonly threads: ConversationThreads;
  readonly events: EventLog;
  /** The config's tools, the memory tools (`memory: true`), and built-ins found on the way (MCP tools, read_artifact). */
  readonly activeTools: string[];
  readonly mcpTools: Map<string, McpTool>;
  readonly skills: RunSkills;
  /** Skill sources to reload before the next model call (a batch showed a gap), with the version to record. */
  readonly skillReloads: Map<string, number>;
  /** Skill name clashes already reported, so each is reported once. */
  readonly reportedClashes: Set<string>;
  /** Skill file errors already reported, by source (`file\nmessage`), so each is reported once. */
  readonly reportedSkillErrors: Map<string, Set<string>>;
  /** From the latest executor step: tools the worker says sub-agents may not have. */
  childUnsafeTools: string[];
  /** From the latest executor step: the worker's descriptions of the tools it calls (for approval requests). */
  toolDescriptions: Record<string, string>;
  /** Texts queued by the inject-message signal or update, drained before the next model call. */
  readonly injectedQueue: string[];
  /** Names of the tools whose activities are running now (one entry per running call). */
  readonly runningTools: string[];
  /** Tools of this agent that a tool activity found missing on its worker (reported once each). */
  readonly unavailableTools: string[];

  phase: RunPhase;
  /** The model call waiting for its provider limit, while one does. */
  providerLimitWait?: ProviderLimitWait;
  /** The concurrency cap the run waits for a slot of, while it does (before its first step). */
  concurrencySlotWait?: ConcurrencySlotWait;
  step: number;
  readonly usage: UsageSummary;
  /** The newest tool results (KEPT_TOOL_RESULTS), summarised: what the result and a continuation carry. */
  readonly toolResults: ToolResult[];
  /** Tool results of the whole run, earlier runs of the chain included. */
  toolResultCount: number;
  /** The previous execution's newest tool results, by reference, until the run reads them back (carried-tool-results.ts). */
  carriedToolResults: StoredToolResults | null;
  plan: PlanArtifact | null;
  /** The prompt size of the latest executor step, when budget awareness is on. */
  lastPromptTokens: number | null;
  /** Compactions so far (carried over), numbering the compaction activities' inputs. */
  compactions: number;
  readonly handoffs: HandoffRecord[];
  /** The agent a handoff tool of the current step chose; the transfer happens after the step's tools. */
  handoffTo: string | null;
  stopReason: StopReason | null;
  /** Loop detection's memory of this run (a thread's: of the current turn), carried through continue-as-new. */
  loopWatch: LoopWatch;
  /** The loop-detection nudge added after the last step's results, until the next model step's input names it (for `history`). */
  loopNudge?: string;
  /** What the run knows of its workers' lifecycle hooks (run-hooks.ts). */
  readonly hooks: RunHooks;
  /** The agent's instructions this execution uses (provider's answer, or the static ones with their variables filled): run-instructions.ts. */
  instructions: string;
}

/** What the loop's state is built from: the parts of an input a run and a thread both have. */
export interface LoopSeed {
  /** The input's config, upgraded to the current schema (`upgradeConfig`). */
  config: AgentConfig;
  carried: CarriedState | undefined;
  /** The conversation before the first step (empty for a continuation: it holds it by reference). */
  messages: Message[];
  agents: Record<string, AgentConfig> | undefined;
  timeouts: Partial<RunTimeouts> | undefined;
  resourceId: string | undefined;
  /** The instructions the execution starts with (run-instructions.ts). */
  instructions: string;
  /** Whether the first model call announces a run's start to the hooks (a fresh run; threads announce their turns). */
  opensRun: boolean;
}

/** The state an execution's loop starts from: fresh, or what the execution it continues carried over. Pure. */
export function createLoopState<Owner extends Execution>(seed: LoopSeed, execution: Owner): LoopState<Owner> {
  const { config, carried, messages, instructions } = seed;
  // The flags decide the built-ins: `spawn_subagents` in `tools` without allow_parallel_subagents is left out.
  const activeTools = configuredTools(config);
  const agents = seed.agents ?? {};
  return {
    execution,
    resourceId: seed.resourceId,
    config,
    timeouts: { ...DEFAULT_TIMEOUTS, ...configTimeouts(config), ...seed.timeouts },
    carried,
    agents,
    taskIndex: carried ? carried.taskIndex : messages.length - 1,
    stepLimit: stepLimitOf(config, carried),
    budget: stepBudget(config),
    injectedArgNames: Object.keys(config.injected_tool_args),
    handoffSpecs: handoffToolSpecs(config, agents),
    threads: new ConversationThreads(buildSystemPrompt(config, instructions), messages, carried?.conversation),
    events: new EventLog(EVENT_LOG_CAPACITY, carried?.recentEvents, carried?.lastEventSeq),
    activeTools,
    mcpTools: new Map(),
    skills: new RunSkills(config.skill_sources, config.skills),
    skillReloads: new Map(),
    reportedClashes: new Set(),
    reportedSkillErrors: reportedSkillErrorsOf(carried?.recentEvents ?? []),
    childUnsafeTools: [],
    toolDescriptions: {},
    injectedQueue: [],
    runningTools: [],
    unavailableTools: [],
    phase: 'starting',
    step: 0,
    usage: carried?.usage ?? emptyUsage(),
    toolResults: [],
    toolResultCount: carried?.toolResultCount ?? 0,
    carriedToolResults: carried?.toolResultsRef ?? null,
    plan: carried?.plan ?? null,
    lastPromptTokens: null,
    compactions: carried?.compactions ?? 0,
    handoffs: carried?.handoffs ?? [],
    handoffTo: null,
    stopReason: null,
    loopWatch: carried?.loopWatch ?? emptyLoopWatch(),
    hooks: initialRunHooks(seed.opensRun),
    instructions,
  };
}

/** The skill errors a continued run already reported (from the events it carried), so they are not reported again. */
function reportedSkillErrorsOf(events: readonly RunEvent[]): Map<string, Set<string>> {
  const reported = new Map<string, Set<string>>();
  for (const event of events) {
    if (event.type !== 'skill-error') continue;
    const keys = reported.get(event.source) ?? new Set<string>();
    keys.add(`${event.file}\n${event.message}`);
    reported.set(event.source, keys);
  }
  return reported;
}

/** Records a step's tool result: counted, and summarised among the newest KEPT_TOOL_RESULTS. */
export function recordToolResult(state: LoopState, result: ToolResult): void {
  state.toolResultCount++;
  state.toolResults.push(summarizeToolResult(result));
  if (state.toolResults.length > KEPT_TOOL_RESULTS) state.toolResults.splice(0, state.toolResults.length - KEPT_TOOL_RESULTS);
}

/** The run's tools: its own, those its skills bring (as the config's flags allow), and built-ins found on the way. */
export function availableTools(state: LoopState): string[] {
  const fromSkills = state.skills.tools().filter((name) => !state.activeTools.includes(name) && toolAllowedByFlags(name, state.config));
  return [...state.activeTools, ...fromSkills];
}

/** Tool specs the model gets besides the worker's registry: handoff tools, then MCP tools. */
export function extraToolSpecs(state: LoopState): ToolSpec[] {
  return [...state.handoffSpecs, ...[...state.mcpTools.values()].map((tool) => tool.spec)];
}

/** What a task is in this execution: a run's task; a thread has none of its own (its turns have messages). */
export function taskOf(state: LoopState): string {
  return state.execution.kind === 'run' ? state.execution.input.task : '';
}

/** The cost a turn's `cost_limit` counts from: set in a thread's turn, undefined in a run. */
export function turnCostBaseOf(state: LoopState): number | undefined {
  return state.execution.kind === 'thread' ? state.execution.turnCostBase : undefined;
}

/** Whether a newer message asked the running thread turn to stop (never in a run). */
export function interruptRequested(state: LoopState): boolean {
  return state.execution.kind === 'thread' && state.execution.interruptRequested;
}

/** The run's resource id, for a tool activity's or a sub-agent's input (nothing for runs without one, as before it existed). */
export function resourceOf(state: LoopState): { resourceId?: string } {
  return state.resourceId !== undefined ? { resourceId: state.resourceId } : {};
}
