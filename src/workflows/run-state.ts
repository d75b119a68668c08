import type { AgentConfig, McpServerConfig } from '../config/agent-config';
import type { ToolSpec } from '../protocol/messages';
import type { RunEvent } from '../protocol/run-events';
import {
  DEFAULT_TIMEOUTS,
  type AgentRunWorkflowInput,
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
} from '../protocol/run-types';
import { configTimeouts, upgradeConfig } from '../config/upgrade-config';
import { MEMORY_TOOLS, SPAWN_PARALLEL_TOOL } from '../protocol/wire-names';
import { buildSystemPrompt, emptyUsage, initialMessages, stepBudget, summarizeToolResult } from './agent-loop';
import { KEPT_TOOL_RESULTS } from '../protocol/payload-size';
import { ConversationThreads } from './conversation-threads';
import { EventLog } from './event-log';
import { handoffToolSpecs } from './handoffs';
import { stepLimitOf } from '../protocol/step-moves';
import { emptyLoopWatch } from './loop-detection';
import type { LoopWatch } from '../protocol/loop-watch';
import { RunSkills } from './run-skills';
import { initialRunHooks, type RunHooks } from './run-hooks';
import { initialInstructions } from './run-instructions';

/** Events the live log keeps; older ones are trimmed and readers told how many they missed. */
const EVENT_LOG_CAPACITY = 1000;

/** A tool of one of the agent's MCP servers, under its namespaced name. */
export interface McpTool {
  server: McpServerConfig;
  mcpName: string;
  spec: ToolSpec;
}

/**
 * Everything one agent run knows and changes, in one place: the modules of the run read and
 * update this object instead of sharing loose variables. Built from the input alone
 * (deterministic); the queries read it, the loop and the handlers write it.
 */
export interface RunState {
  readonly input: AgentRunWorkflowInput;
  /** The loop-detection nudge added after the last step's results, until the next model step's input names it (for `history`). */
  loopNudge?: string;
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
  /** Threads: the run's cost when the running turn began (a turn's `cost_limit` counts from it). Never set in runs. */
  turnCostBase?: number;
  /** Threads: a newer message asked the running turn to stop at its next safe point. Never set in runs. */
  interruptRequested?: boolean;
  /**
   * Threads: how this execution continues as new (as a thread, with the thread's own state), in
   * place of continuing as a run. Absent in runs.
   */
  continueAs?: (carry: CarriedState, next: AgentConfig) => Promise<never>;
  /** What the run knows of its workers' lifecycle hooks (run-hooks.ts). */
  readonly hooks: RunHooks;
  /** The agent's instructions this execution uses (provider's answer, or the static ones with their variables filled): run-instructions.ts. */
  instructions: string;
}

/** The state a run (or a thread) starts from: fresh, or what the execution it continues carried over. Pure. */
export function createRunState(input: AgentRunWorkflowInput, options: { thread?: boolean } = {}): RunState {
  const config = upgradeConfig(input.config);
  const carried = input.carried;
  // A continuation holds the conversation by reference; a thread starts with its earlier messages
  // only: each turn adds its own.
  const messages = carried ? [] : options.thread ? [...(input.messages ?? [])] : initialMessages(input);
  const activeTools = [...config.tools];
  if (config.allow_parallel_subagents && !activeTools.includes(SPAWN_PARALLEL_TOOL)) activeTools.push(SPAWN_PARALLEL_TOOL);
  if (config.memory) activeTools.push(...MEMORY_TOOLS.filter((name) => !activeTools.includes(name)));
  const agents = input.agents ?? {};
  const instructions = initialInstructions(config, input, options);
  return {
    input,
    config,
    timeouts: { ...DEFAULT_TIMEOUTS, ...configTimeouts(config), ...input.timeouts },
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
    hooks: initialRunHooks(!carried && !options.thread),
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
export function recordToolResult(state: RunState, result: ToolResult): void {
  state.toolResultCount++;
  state.toolResults.push(summarizeToolResult(result));
  if (state.toolResults.length > KEPT_TOOL_RESULTS) state.toolResults.splice(0, state.toolResults.length - KEPT_TOOL_RESULTS);
}

/** The run's tools: its own, those its skills bring, and built-ins found on the way. */
export function availableTools(state: RunState): string[] {
  return [...state.activeTools, ...state.skills.tools().filter((name) => !state.activeTools.includes(name))];
}

/** Tool specs the model gets besides the worker's registry: handoff tools, then MCP tools. */
export function extraToolSpecs(state: RunState): ToolSpec[] {
  return [...state.handoffSpecs, ...[...state.mcpTools.values()].map((tool) => tool.spec)];
}
