import {
  ApplicationFailure,
  continueAsNew,
  executeChild,
  makeContinueAsNewFunc,
  isCancellation,
  ParentClosePolicy,
  log,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { SearchAttributePair } from '@temporalio/common';
import type { AgentActivities } from '../activities';
import { parseDuration } from '../shared/duration';
import { ErrorCode } from '../shared/errors';
import type { ToolCall, ToolSpec } from '../shared/messages';
import { conversationQuery, eventsQuery, injectMessageSignal, injectMessageUpdate, skillsChangedSignal, statusQuery } from '../shared/run-messages';
import { buildSkillInstructions } from '../shared/skill-instructions';
import type { SkillInfo } from '../shared/skill-types';
import { RunSkills } from './run-skills';
import {
  DEFAULT_TIMEOUTS,
  type AgentRunInput,
  type AgentRunResult,
  type CarriedState,
  type HandoffRecord,
  type ApprovalRecord,
  type ConversationThread,
  type ModelPurpose,
  type ModelStepResult,
  type PlanArtifact,
  type RunPhase,
  type RunTimeouts,
  type StopReason,
  type ToolResult,
} from '../shared/run-types';
import { AgentNameAttribute, AgentSkillSourcesAttribute, AgentStatusAttribute } from '../shared/search-attributes';
import { upgradeConfig } from '../shared/upgrade-config';
import { READ_ARTIFACT_TOOL, SPAWN_PARALLEL_TOOL } from '../shared/wire-names';
import { handoffTarget, handoffToolSpecs } from './handoffs';
import type { AgentConfig, McpServerConfig } from '../shared/agent-config';
import { childConfig, childSafeTools, childTask, isSubagentTool, outcomeOf, parseJobs, type SubagentOutcome } from './subagents';
import {
  addUsage,
  buildSystemPrompt,
  compactedMessages,
  compactionKeepFrom,
  DEFAULT_PLANNER_PROMPT,
  emptyUsage,
  initialMessages,
  lastAssistantText,
  outputCorrectionMessage,
  planArtifact,
  stepBudget,
  summarizeToolResult,
  taskWithPlan,
  toToolMessage,
  unapprovedResult,
  workflowErrorResult,
  workflowToolResult,
} from './agent-loop';
import { ApprovalGate } from './approval-gate';
import { ConversationThreads } from './conversation-threads';
import { EventLog } from './event-log';

const EVENT_LOG_CAPACITY = 1000;

/** Handoffs carry the target's status and skill sources as search attributes (runs before: only its name). */
const HANDOFF_SEARCH_ATTRIBUTES_PATCH = 'handoff-search-attributes';

/** Model failures that retrying cannot fix. */
const NON_RETRYABLE_MODEL_ERRORS = [
  ErrorCode.contextLengthExceeded,
  ErrorCode.modelAuthFailed,
  ErrorCode.modelBadRequest,
  ErrorCode.modelNotFound,
  ErrorCode.missingApiKey,
  ErrorCode.scriptedModelMismatch,
];

/** Thrown inside the run to end it early with a normal result (never escapes the workflow). */
class RunStop {
  constructor(
    readonly reason: StopReason,
    readonly detail: string,
  ) {}
}

/**
 * One agent run: (optional planner phase) → per step: drain injected messages → model step
 * (with budget checks and compaction) → the requested tool calls in parallel, each its own
 * activity, gated ones after a human decision → results fed back → until a text-only answer or
 * `max_steps`. Every message enters the history once; model steps read the conversation through
 * the `conversation` query. A stop (max steps, context length, budget, invalid output) is a
 * normal result with its reason.
 */
export async function agentRun(input: AgentRunInput): Promise<AgentRunResult> {
  const config = upgradeConfig(input.config);
  const timeouts: RunTimeouts = { ...DEFAULT_TIMEOUTS, ...input.timeouts };
  const carried = input.carried;
  const messages = carried ? [...carried.messages] : initialMessages(input);
  const taskIndex = carried ? carried.taskIndex : messages.length - 1;
  const threads = new ConversationThreads(buildSystemPrompt(config), messages);
  const activeTools = [...config.tools];
  if (config.allow_parallel_subagents && !activeTools.includes(SPAWN_PARALLEL_TOOL)) activeTools.push(SPAWN_PARALLEL_TOOL);
  const injectedArgNames = Object.keys(config.injected_tool_args);
  const budget = stepBudget(config);
  const agents = input.agents ?? {};
  const handoffSpecs = handoffToolSpecs(config, agents);
  const skills = new RunSkills(config.skill_sources, config.skills);
  const reloadSkillSources = new Map<string, number>();
  /** From the latest executor step: tools the worker says sub-agents may not have. */
  let childUnsafeTools: string[] = [];
  /** The run's tools: its own, those its skills bring, and built-ins found on the way. */
  const availableTools = () => [...activeTools, ...skills.tools().filter((name) => !activeTools.includes(name))];
  /** MCP tools found at the start of this run, by their namespaced name. */
  const mcpTools = new Map<string, { server: McpServerConfig; mcpName: string; spec: ToolSpec }>();
  const extraToolSpecs = () => [...handoffSpecs, ...[...mcpTools.values()].map((tool) => tool.spec)];
  const handoffs: HandoffRecord[] = carried?.handoffs ?? [];
  const stepLimit = (carried?.stepBase ?? 0) + config.max_steps;
  let handoffTo: string | null = null;
  const events = new EventLog(EVENT_LOG_CAPACITY, carried?.recentEvents);
  const usage = carried?.usage ?? emptyUsage();
  const toolResults: ToolResult[] = carried ? [...carried.toolResults] : [];
  const runningTools: string[] = [];
  const injectedQueue: string[] = [];
  let phase: RunPhase = 'starting';
  let step = 0;
  let stopReason: StopReason | null = null;
  let plan: PlanArtifact | null = carried?.plan ?? null;
  let lastPromptTokens: number | null = null;
  let compactions = carried?.compactions ?? 0;

  setHandler(conversationQuery, (request) => threads.slice(request));
  setHandler(eventsQuery, (cursor, limit = 200) => events.page(cursor, limit, stopReason !== null));
  const approvals = new ApprovalGate(events, parseDuration(config.hitl_timeout), injectedArgNames);
  setHandler(statusQuery, () => ({
    phase,
    step,
    maxSteps: config.max_steps,
    activeTools: availableTools(),
    runningTools: [...runningTools],
    usage,
    messageCount: threads.messages('executor').length,
    stopReason,
    pendingApprovals: approvals.book.pending(),
    plan,
    budget: budget && lastPromptTokens !== null ? { promptTokens: lastPromptTokens, contextWindow: budget.contextWindow } : null,
    queuedMessages: injectedQueue.length,
    skills: skills.status(),
  }));
  setHandler(injectMessageSignal, (message) => {
    if (typeof message?.text !== 'string' || !message.text.trim()) {
      log.warn('Ignored an empty injected message');
      return;
    }
    injectedQueue.push(message.text);
  });
  setHandler(
    injectMessageUpdate,
    (message) => {
      injectedQueue.push(message.text);
      return { queued: injectedQueue.length };
    },
    {
      validator: (message) => {
        if (typeof message?.text !== 'string' || !message.text.trim()) throw new Error('text: an injected message must not be empty');
      },
    },
  );

  if (!workflowInfo().typedSearchAttributes.get(AgentNameAttribute)) {
    upsertSearchAttributes([
      { key: AgentNameAttribute, value: config.name },
      { key: AgentStatusAttribute, value: 'running' },
    ]);
  }
  if (!carried) events.push({ type: 'run-started', agent: config.name, model: config.model, task: input.task });

  const enterPhase = (next: RunPhase) => {
    phase = next;
    events.push({ type: 'status-changed', phase: next, step });
    setCurrentDetails(`step ${step} of ${config.max_steps}: ${next}`);
  };

  const finish = (reason: StopReason, output: string, extra: Partial<AgentRunResult> = {}): AgentRunResult => {
    stopReason = reason;
    phase = 'completed';
    upsertSearchAttributes([{ key: AgentStatusAttribute, value: 'completed' }]);
    events.push({ type: 'run-completed', stopReason: reason, output });
    setCurrentDetails(`completed: ${reason}`);
    return {
      output,
      stopReason: reason,
      steps: step,
      usage,
      toolResults,
      ...(plan ? { plan } : {}),
      ...(handoffs.length > 0 ? { agent: config.name, handoffs } : {}),
      ...extra,
    };
  };

  /** One model call on a thread; a context-length error becomes a RunStop. */
  const callModel = async (thread: ConversationThread, activityId: string, purpose: ModelPurpose, model: string, withBudget: boolean): Promise<ModelStepResult> => {
    const { modelStep } = proxyActivities<AgentActivities>({
      activityId,
      summary: activitySummary(activityId, `model ${model}`),
      startToCloseTimeout: timeouts.modelStepMs,
      heartbeatTimeout: timeouts.heartbeatMs,
      retry: { maximumAttempts: config.max_retries, initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', nonRetryableErrorTypes: NON_RETRYABLE_MODEL_ERRORS },
    });
    try {
      const reply = await modelStep({
        conversation: threads.ref(thread),
        model,
        temperature: config.temperature,
        maxTokens: config.max_tokens,
        toolNames: availableTools(),
        injectedToolArgs: config.injected_tool_args,
        ...(handoffSpecs.length > 0 || mcpTools.size > 0 ? { extraToolSpecs: extraToolSpecs() } : {}),
        outputSchema: thread === 'executor' ? config.output_type : null,
        step,
        ...(purpose === 'executor' ? {} : { purpose }),
        ...(withBudget && budget ? { budget } : {}),
      });
      addUsage(usage, reply.model, reply.usage);
      return reply;
    } catch (error) {
      if (isCancellation(error)) throw error;
      if (failureType(error) === ErrorCode.contextLengthExceeded) {
        throw new RunStop('context_length_exceeded', `The conversation no longer fits the context window of ${model}: ${describeFailure(error)}`);
      }
      throw ApplicationFailure.nonRetryable(`Model step ${activityId} (${model}) failed: ${describeFailure(error)}`, failureType(error) ?? 'ModelStepFailed');
    }
  };

  /** Summarises older turns into a new conversation epoch; false when nothing can be compacted. */
  const compact = async (tokensBefore: number): Promise<boolean> => {
    const current = threads.messages('executor');
    const keepFrom = compactionKeepFrom(current, taskIndex);
    if (keepFrom === null) return false;
    enterPhase('compacting');
    const { compactConversation } = proxyActivities<AgentActivities>({
      activityId: `step-${step}.compaction`,
      summary: activitySummary(`step-${step}.compaction`, 'compact the conversation'),
      startToCloseTimeout: timeouts.modelStepMs,
      heartbeatTimeout: timeouts.heartbeatMs,
      retry: { maximumAttempts: config.max_retries, nonRetryableErrorTypes: NON_RETRYABLE_MODEL_ERRORS },
    });
    const result = await compactConversation({ conversation: threads.ref('executor'), model: config.model, keepFrom, taskIndex, sequence: compactions++ });
    addUsage(usage, config.model, result.usage);
    threads.rewrite('executor', compactedMessages(current, taskIndex, keepFrom, result.summary));
    events.push({ type: 'context-compacted', step, tokensBefore, removedMessages: keepFrom - taskIndex - 1 });
    return true;
  };

  /** The executor's model step with budget awareness: compaction first, a budget stop if still too big. */
  const executorStep = async (): Promise<ModelStepResult> => {
    let reply = await callModel('executor', `step-${step}.model`, 'executor', config.model, true);
    if (reply.overBudget && (await compact(reply.overBudget.promptTokens))) {
      enterPhase('model');
      reply = await callModel('executor', `step-${step}.model-after-compaction`, 'executor', config.model, true);
    }
    childUnsafeTools = reply.childUnsafeTools ?? [];
    if (reply.overBudget) {
      events.push({ type: 'budget-stopped', step, ...reply.overBudget });
      throw new RunStop(
        'budget_limit',
        `The prompt needs ${reply.overBudget.promptTokens} tokens, above the budget of ${reply.overBudget.limitTokens} (${config.budget_awareness} of a ${budget?.contextWindow}-token window), even after compaction; no further model call was made.`,
      );
    }
    if (budget && reply.promptTokens !== undefined) {
      lastPromptTokens = reply.promptTokens;
      const percent = Math.round((reply.promptTokens / budget.contextWindow) * 1000) / 10;
      events.push({ type: 'budget-advisory', step, promptTokens: reply.promptTokens, contextWindow: budget.contextWindow, percent });
    }
    return reply;
  };

  /** Sub-agent calls: each job a child workflow (visible under this run in the Web UI), in parallel. */
  const runSubagents = async (call: ToolCall, activityPrefix: string): Promise<ToolResult> => {
    const startedAt = Date.now();
    const childSafe = childSafeTools(availableTools(), childUnsafeTools);
    const parsed = parseJobs(call, config.max_parallel_subagents, childSafe);
    if ('error' in parsed) return workflowErrorResult(call, step, startedAt, `Error: ${parsed.error}`, ErrorCode.subagentRefused);
    const parentId = workflowInfo().workflowId;
    const outcomes = await Promise.all(
      parsed.jobs.map(async (job, index): Promise<SubagentOutcome> => {
        const workflowId = `${parentId}.${activityPrefix}.sub-${index + 1}`;
        try {
          const result = await executeChild(agentRun, {
            workflowId,
            args: [{ config: childConfig(config, job, childSafe), task: childTask(job), timeouts: input.timeouts }],
            parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
            staticSummary: `sub-agent ${index + 1} of ${config.name}: ${job.task.slice(0, 80)}`,
            typedSearchAttributes: [
              { key: AgentNameAttribute, value: config.name },
              { key: AgentStatusAttribute, value: 'running' },
            ],
          });
          return outcomeOf(index, job, workflowId, result);
        } catch (error) {
          if (isCancellation(error)) throw error;
          return { job: index, task: job.task, status: 'error', error: describeFailure(error), workflow_id: workflowId };
        }
      }),
    );
    return workflowToolResult(call, step, startedAt, Date.now(), JSON.stringify({ results: outcomes }));
  };

  /** With emit_mcp_progress: false the tools' progress is not shown live either. */
  const quietProgress = config.emit_mcp_progress ? {} : { quietProgress: true as const };

  const runToolCall = async (call: ToolCall, index: number, activityPrefix: string): Promise<ToolResult> => {
    const target = handoffTarget(call.name, config);
    if (target !== null) {
      // The first handoff of a step wins; the transfer happens once this step's tools are done.
      if (handoffTo !== null && handoffTo !== target) {
        return workflowErrorResult(call, step, Date.now(), `Error: already handing off to '${handoffTo}' in this step`, ErrorCode.toolFailed);
      }
      handoffTo = target;
      return workflowToolResult(call, step, Date.now(), Date.now(), `Transferred the conversation to agent '${target}'.`);
    }
    if (!availableTools().includes(call.name)) {
      const available = availableTools().join(', ') || 'none';
      return workflowErrorResult(call, step, Date.now(), `Error: unknown tool '${call.name}'. Available tools: ${available}`, ErrorCode.toolNotFound);
    }
    let approval: ApprovalRecord | null = null;
    if (config.hitl_tools.includes(call.name)) {
      approval = await approvals.awaitDecision(call, step, index);
      if (approval.outcome !== 'approved') return unapprovedResult(call, step, approval);
    }
    if (isSubagentTool(call.name)) return runSubagents(call, activityPrefix);
    runningTools.push(call.name);
    try {
      const mcpTool = mcpTools.get(call.name);
      if (mcpTool) {
        const { callMcpTool } = proxyActivities<AgentActivities>(toolActivityOptions(`${activityPrefix}.tool-${index + 1}.${call.name}`, timeouts));
        return await callMcpTool({ server: mcpTool.server, mcpName: mcpTool.mcpName, call, step, injectedArgNames, ...(approval ? { approvalId: approval.approvalId } : {}), ...quietProgress });
      }
      const { runTool } = proxyActivities<AgentActivities>(toolActivityOptions(`${activityPrefix}.tool-${index + 1}.${call.name}`, timeouts));
      const result = await runTool({ call, step, injectedArgNames, offloadThreshold: config.offload_threshold, ...(approval ? { approvalId: approval.approvalId } : {}), ...quietProgress });
      // The model can read an offloaded result from the next step on.
      if (result.metadata.offloaded_artifact_id && !activeTools.includes(READ_ARTIFACT_TOOL)) activeTools.push(READ_ARTIFACT_TOOL);
      return result;
    } catch (error) {
      if (isCancellation(error)) throw error;
      return workflowErrorResult(call, step, Date.now(), `Error: tool '${call.name}' did not complete: ${describeFailure(error)}`, ErrorCode.toolFailed);
    } finally {
      runningTools.splice(runningTools.indexOf(call.name), 1);
    }
  };

  /** Runs a step's tool calls in parallel and reports them; results come back in call order. */
  const runToolCalls = async (calls: ToolCall[], activityPrefix: string): Promise<ToolResult[]> => {
    for (const call of calls) events.push({ type: 'tool-called', step, call });
    const results = await Promise.all(calls.map((call, index) => runToolCall(call, index, activityPrefix)));
    for (const { progress, ...result } of results) {
      if (config.emit_mcp_progress) {
        for (const note of progress ?? []) events.push({ type: 'mcp-progress', step, callId: result.callId, toolName: result.toolName, progress: note });
      }
      events.push({ type: 'tool-completed', step, callId: result.callId, toolName: result.toolName, content: result.content, isError: result.isError, metadata: result.metadata });
    }
    return results;
  };

  /** The planner phase: its own transcript, model and instructions; only the plan text comes back. */
  const runPlanner = async (): Promise<PlanArtifact> => {
    const plannerModel = config.planning_model ?? config.model;
    threads.start('planner', config.planning_instructions.trim() || DEFAULT_PLANNER_PROMPT, [{ role: 'user', content: input.task }]);
    enterPhase('planning');
    for (let plannerStep = 1; plannerStep <= config.max_steps; plannerStep++) {
      const reply = await callModel('planner', `plan-${plannerStep}.model`, 'planner', plannerModel, false);
      threads.push('planner', reply.message);
      if (reply.message.toolCalls.length === 0) return planArtifact(reply.message.content, plannerModel, plannerStep);
      const results = await runToolCalls(reply.message.toolCalls, `plan-${plannerStep}`);
      for (const result of results) threads.push('planner', toToolMessage(result));
    }
    return planArtifact(lastAssistantText(threads.messages('planner')), plannerModel, config.max_steps);
  };

  const drainInjectedMessages = () => {
    while (injectedQueue.length > 0) {
      const text = injectedQueue.shift()!;
      threads.push('executor', { role: 'user', content: text });
      events.push({ type: 'message-injected', step, text });
    }
  };

  /** Continues as new with the conversation and counters; `next` is the agent that takes over. */
  const continueWith = async (next: AgentConfig, stepBase: number): Promise<never> => {
    drainInjectedMessages();
    const carry: CarriedState = {
      messages: threads.messages('executor'),
      taskIndex,
      step: step - 1,
      usage,
      toolResults,
      plan,
      compactions,
      recentEvents: events.tail(200),
      continuations: (carried?.continuations ?? 0) + 1,
      stepBase,
      handoffs,
    };
    const nextInput: AgentRunInput = { config: next, task: input.task, timeouts: input.timeouts, historyEventLimit: input.historyEventLimit, agents, carried: carry };
    if (next.name === config.name) return continueAsNew<typeof agentRun>(nextInput);
    // The attributes given here replace the run's: the target's name, status and skill sources
    // (so the skills watcher signals the run that now follows the target's sources).
    const targetAttributes = patched(HANDOFF_SEARCH_ATTRIBUTES_PATCH)
      ? [
          { key: AgentNameAttribute, value: next.name },
          { key: AgentStatusAttribute, value: 'running' },
          ...(next.skill_sources.length > 0 ? [{ key: AgentSkillSourcesAttribute, value: next.skill_sources }] : []),
        ]
      : [{ key: AgentNameAttribute, value: next.name }];
    return makeContinueAsNewFunc<typeof agentRun>({ typedSearchAttributes: targetAttributes as SearchAttributePair[] })(nextInput);
  };

  /** Hands the conversation to a fresh run before the history grows near Temporal's limits. */
  const continueIfHistoryIsLong = async (): Promise<void> => {
    const info = workflowInfo();
    const due = input.historyEventLimit !== undefined ? info.historyLength >= input.historyEventLimit : info.continueAsNewSuggested;
    if (!due) return;
    log.info('Continuing as new to keep the history small', { step, historyLength: info.historyLength });
    await continueWith(config, carried?.stepBase ?? 0);
  };

  /** Transfers the conversation to another agent: a new run (continue-as-new) with its config. */
  const handOff = async (target: string): Promise<never> => {
    handoffs.push({ from: config.name, to: target, step });
    events.push({ type: 'handoff', step, from: config.name, to: target });
    step++;
    return continueWith(agents[target]!, step - 1);
  };

  const reportedClashes = new Set<string>();
  /** After a skill change: the system prompt is rebuilt from the active skills (tools follow availableTools). */
  const rebuildSkillInstructions = () => {
    const skillText = buildSkillInstructions(config.instructions_builder, skills.active());
    threads.setSystem('executor', [buildSystemPrompt(config), skillText].filter(Boolean).join('\n\n'));
    for (const clash of skills.clashes()) {
      const key = `${clash.name}\n${clash.hidden}`;
      if (reportedClashes.has(key)) continue;
      reportedClashes.add(key);
      log.warn('Two skill sources have a skill of the same name; the first listed wins', clash);
      events.push({ type: 'skill-shadowed', ...clash });
    }
  };

  const reportSkillChanges = (source: string, version: number, before: string[], after: SkillInfo[], reloaded: boolean) => {
    const afterNames = after.map((skill) => skill.name);
    events.push({
      type: 'skills-changed',
      step,
      source,
      version,
      added: afterNames.filter((name) => !before.includes(name)),
      modified: [],
      removed: before.filter((name) => !afterNames.includes(name)),
      reloaded,
    });
  };

  setHandler(skillsChangedSignal, (batch) => {
    const outcome = skills.offer(batch);
    for (const error of batch.errors ?? []) events.push({ type: 'skill-error', source: batch.source, file: error.file, message: error.message });
    if (outcome === 'applied') {
      rebuildSkillInstructions();
      events.push({
        type: 'skills-changed',
        step,
        source: batch.source,
        version: batch.version,
        added: batch.changes.filter((change) => change.kind === 'added').map((change) => change.skillName),
        modified: batch.changes.filter((change) => change.kind === 'modified').map((change) => change.skillName),
        removed: batch.changes.filter((change) => change.kind === 'removed').map((change) => change.skillName),
        reloaded: false,
      });
    } else if (outcome === 'gap') {
      // A missed batch: reload the whole source before the next model call.
      reloadSkillSources.set(batch.source, Math.max(batch.version, reloadSkillSources.get(batch.source) ?? 0));
    } else {
      log.info('Ignored a skills batch', { source: batch.source, version: batch.version, outcome });
    }
  });

  /** Reads whole skill sources through an activity: at the start, and after a gap. */
  const loadSkillSources = async (sources: Map<string, number>): Promise<void> => {
    const { loadSkillSources: load } = proxyActivities<AgentActivities>({
      activityId: `step-${step}.load-skills`,
      summary: `load skills from ${[...sources.keys()].join(', ')}`,
      startToCloseTimeout: '2m',
      retry: { maximumAttempts: 3 },
    });
    const snapshots = await load([...sources.keys()]);
    for (const snapshot of snapshots) {
      const before = skills.status().find((entry) => entry.source === snapshot.source)?.names ?? [];
      skills.load(snapshot, sources.get(snapshot.source) ?? 0);
      for (const error of snapshot.errors) events.push({ type: 'skill-error', source: snapshot.source, file: error.file, message: error.message });
      reportSkillChanges(snapshot.source, sources.get(snapshot.source) ?? 0, before, snapshot.skills, true);
    }
    rebuildSkillInstructions();
  };

  const reloadSkillsIfNeeded = async () => {
    if (reloadSkillSources.size === 0) return;
    const sources = new Map(reloadSkillSources);
    reloadSkillSources.clear();
    await loadSkillSources(sources);
  };

  /** Lists the tools of the agent's MCP servers; a server that is down is reported, not fatal. */
  const discoverMcpTools = async (): Promise<void> => {
    const { listMcpTools } = proxyActivities<AgentActivities>({
      activityId: 'mcp.list-tools',
      summary: `list tools of MCP servers ${config.mcp_servers.map((server) => server.name).join(', ')}`,
      startToCloseTimeout: '2m',
      retry: { maximumAttempts: 3 },
    });
    const listing = await listMcpTools(config.mcp_servers);
    for (const { server, mcpName, ...spec } of listing.tools) {
      mcpTools.set(spec.name, { server: config.mcp_servers.find((candidate) => candidate.name === server)!, mcpName, spec });
      if (!activeTools.includes(spec.name)) activeTools.push(spec.name);
    }
    for (const unavailable of listing.unavailable) events.push({ type: 'mcp-server-unavailable', server: unavailable.server, error: unavailable.error });
  };

  try {
    if (config.skill_sources.length > 0) await loadSkillSources(new Map(config.skill_sources.map((source) => [source, 0])));
    if (config.mcp_servers.length > 0) await discoverMcpTools();
    if (config.planning_enabled && !carried) {
      plan = await runPlanner();
      const executorMessages = threads.messages('executor');
      executorMessages[taskIndex] = { role: 'user', content: taskWithPlan(input.task, plan) };
      events.push({ type: 'plan-created', plan });
    }
    for (step = (carried?.step ?? 0) + 1; step <= stepLimit; step++) {
      if (step > 1) await continueIfHistoryIsLong();
      await reloadSkillsIfNeeded();
      drainInjectedMessages();
      enterPhase('model');
      const reply = await executorStep();
      threads.push('executor', reply.message);
      if (reply.message.content) events.push({ type: 'text-produced', step, text: reply.message.content });
      const calls = reply.message.toolCalls;

      if (calls.length === 0) {
        if (reply.outputError === undefined) {
          return finish('completed', reply.message.content, reply.structuredOutput !== undefined ? { structuredOutput: reply.structuredOutput } : {});
        }
        events.push({ type: 'output-rejected', step, reason: reply.outputError });
        if (step === stepLimit) return finish('output_invalid', reply.message.content, { stopDetail: reply.outputError });
        threads.push('executor', outputCorrectionMessage(reply.outputError));
        continue;
      }

      enterPhase('tools');
      for (const result of await runToolCalls(calls, `step-${step}`)) {
        threads.push('executor', toToolMessage(result));
        toolResults.push(summarizeToolResult(result));
      }
      if (handoffTo !== null) await handOff(handoffTo);
    }
    step = stepLimit;
    return finish('max_steps', lastAssistantText(threads.messages('executor')), {
      stopDetail: `Stopped after max_steps (${config.max_steps}) model steps without a final answer`,
    });
  } catch (error) {
    if (error instanceof RunStop) return finish(error.reason, lastAssistantText(threads.messages('executor')), { stopDetail: error.detail });
    throw error;
  }
}

function toolActivityOptions(activityId: string, timeouts: RunTimeouts): ActivityOptions {
  return {
    activityId,
    summary: activitySummary(activityId, `tool ${activityId.split('.')[2] ?? ''}`),
    startToCloseTimeout: timeouts.toolMs,
    heartbeatTimeout: timeouts.heartbeatMs,
    // Tool errors are results, not failures: only a dead worker or a RetryableToolError retries.
    retry: { maximumAttempts: 5, initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
  };
}

/** What the Web UI shows for an activity: "step 3: tool get_weather", "plan 1: model openai:gpt-4o". */
function activitySummary(activityId: string, what: string): string {
  const [label = '', part = ''] = activityId.split('.');
  const suffix = part.endsWith('-after-compaction') ? ' (after compaction)' : '';
  return `${label.replace('-', ' ')}: ${what}${suffix}`;
}

/** The `type` of the ApplicationFailure at the root of an activity failure, if any. */
function failureType(error: unknown): string | undefined {
  let current: unknown = error;
  while (current && typeof current === 'object') {
    if (current instanceof ApplicationFailure && current.type) return current.type;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function describeFailure(error: unknown): string {
  let current: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  while (current && typeof current === 'object' && (current as { cause?: unknown }).cause) {
    current = (current as { cause?: unknown }).cause;
    if (current instanceof Error && current.message) message = current.message;
  }
  return message;
}
