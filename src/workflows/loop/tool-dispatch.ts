// Tool dispatch: where each tool call of a step goes (handoff, refusal, approval, sub-agents, MCP, tool activity).
import { isCancellation, log, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import { ErrorCode } from '../../protocol/errors';
import type { ToolCall } from '../../protocol/messages';
import type { ApprovalRecord, ConversationThread, RunTimeouts, RunToolInput, ToolResult } from '../../protocol/run-types';
import { jsonBytes, PAYLOAD_LIMIT_BYTES } from '../../protocol/payload-size';
import { withApproval, withDeciders } from '../../protocol/tool-results';
import { policyDecider } from '../../protocol/call-deciders';
import { retriedCall, type CallTry } from './activity-retries';
import { READ_ARTIFACT_TOOL } from '../../protocol/wire-names';
import { activitySummary } from '../rules/activity-summary';
import { unapprovedResult, withInjectedArgs, workflowErrorResult, workflowToolResult } from '../rules/tool-result-builders';
import { splitInjectedArgs } from '../../protocol/split-injected-args';
import type { ApprovalGate } from './approval-gate';
import { describeFailure } from '../rules/describe-failure';
import { claimHandoff, toolRoute } from '../rules/loop-decisions';
import { policyVerdict } from './policy-gate';
import { replayRecordedCall } from './replayed-tool-calls';
import { availableTools, resourceOf, type LoopState } from './loop-state';
import { runSubagents } from './subagent-dispatch';
import { approvalDecidedHooks, decideToolCall, reportHookFailures, toolCallHooks } from './run-hooks';
import { describeHookFailure } from '../../protocol/hook-types';

/**
 * Tool dispatch: a step's tool calls run in parallel and come back in call order. Each call goes
 * where `toolRoute` says: a handoff is recorded (the transfer follows the step), an unknown tool
 * is refused, the agent's tool policies deny it or gate it (policy-gate.ts), a gated one waits
 * for its approval first; then sub-agents run as child workflows (subagent-dispatch.ts),
 * MCP tools through the MCP activity, other tools through the tool activity (which may offload
 * a large result to an artifact). A tool that fails is an error result the model sees, never a
 * failed run.
 */

/**
 * Runs a step's tool calls in parallel; results come back in call order. Each call is reported
 * (`tool-completed`, its progress) as soon as it completes, not when the slowest call of the step
 * (or a pending approval) ends: reporting is no command, so the order of commands is unchanged.
 * A single call needs no `Promise.all` (two promises fewer: settle.ts).
 */
export function runToolCalls(
  state: LoopState,
  approvals: ApprovalGate,
  calls: ToolCall[],
  activityPrefix: string,
  caller: ConversationThread = 'executor',
): Promise<ToolResult[]> {
  const report = toolCallReporter(state);
  for (const call of calls) state.events.push({ type: 'tool-called', step: state.step, call });
  if (calls.length === 1) return runToolCall(state, approvals, calls[0]!, { index: 0, activityPrefix, caller }).then((result) => [report(result)]);
  return Promise.all(calls.map((call, index) => runToolCall(state, approvals, call, { index, activityPrefix, caller }).then(report)));
}

/** Where a call sits: its index in the step, the step's activity id prefix, and whose conversation made it. */
interface CallPlace {
  index: number;
  activityPrefix: string;
  /** The planner's calls cannot hand off (claimHandoff): nothing it calls changes the executor's run. */
  caller: ConversationThread;
}

/** Reports a completed call (`tool-completed`, its progress and hook failures) and returns its result without them. */
function toolCallReporter(state: LoopState): (result: ToolResult) => ToolResult {
  const { events, step } = state;
  return ({ progress, hookFailures, ...result }: ToolResult): ToolResult => {
    for (const { outcome, ...failure } of hookFailures ?? []) reportHookFailures(state, [failure], outcome);
    if (state.config.emit_mcp_progress) {
      for (const note of progress ?? [])
        events.push({ type: 'mcp-progress', step, callId: result.callId, toolName: result.toolName, progress: note });
    }
    events.push({
      type: 'tool-completed',
      step,
      callId: result.callId,
      toolName: result.toolName,
      content: result.content,
      isError: result.isError,
      metadata: result.metadata,
    });
    return result;
  };
}

// Every command a call issues (approval timer, activity, child) is issued in the same tick as in
// the recorded histories: no await may come before them, or parallel calls would reorder.
async function runToolCall(state: LoopState, approvals: ApprovalGate, call: ToolCall, place: CallPlace): Promise<ToolResult> {
  const { config, step } = state;
  const { index, activityPrefix } = place;
  const route = toolRoute(call.name, config, availableTools(state), state.mcpTools);
  if (route.kind === 'handoff') {
    // The transfer is the handoff tool's work: it takes no argument, and the injected ones go to its metadata.
    const { injected } = splitInjectedArgs(call.args, state.injectedArgNames);
    const claim = claimHandoff(state.handoffTo, route.target, place.caller);
    if ('refusal' in claim) return withInjectedArgs(workflowErrorResult(call, step, Date.now(), claim.refusal, claim.errorCode), injected);
    state.handoffTo = claim.handoffTo;
    return withInjectedArgs(
      workflowToolResult(call, step, Date.now(), Date.now(), `Transferred the conversation to agent '${route.target}'.`),
      injected,
    );
  }
  // Arguments this large would make the activity (or child) input one Temporal refuses, for ever.
  const argumentBytes = jsonBytes(call.args);
  if (argumentBytes > PAYLOAD_LIMIT_BYTES) {
    return workflowErrorResult(
      call,
      step,
      Date.now(),
      `Error: the arguments of '${call.name}' are ${argumentBytes} bytes, more than a tool call may carry (${PAYLOAD_LIMIT_BYTES}). Pass large content in pieces, or by reference.`,
      ErrorCode.payloadTooLarge,
    );
  }
  if (route.kind === 'unknown') {
    const available = availableTools(state).filter((name) => !state.unavailableTools.includes(name));
    return workflowErrorResult(
      call,
      step,
      Date.now(),
      `Error: unknown tool '${call.name}'. Available tools: ${available.join(', ') || 'none'}`,
      ErrorCode.toolNotFound,
    );
  }
  // A before-tool hook's decision comes first (taken in the model step that asked for the call and
  // recorded there): it may deny the call or change its arguments. The tool policies then judge the
  // call the hook produced, and a call both send for approval waits once, with both reasons.
  const hookDecision = decideToolCall(state, call);
  if (hookDecision?.kind === 'refused') return hookDecision.result;
  if (hookDecision) call = hookDecision.call;
  const policy = policyVerdict(state, call, route.gated);
  // Who decided, in order: the hook, then the rule (metadata.decided_by; an approval's requiredBy).
  const deciders = [...(hookDecision ? [hookDecision.decider] : []), ...(policy.match ? [policyDecider(policy.match)] : [])];
  if (policy.denied) return withDeciders(policy.denied, deciders);
  const activityId = `${activityPrefix}.tool-${index + 1}.${call.name}`;
  // An evaluation run answers from the recorded run; only an unrecorded call with live tools goes on.
  const replay = state.execution.kind === 'run' ? state.execution.input.replay : undefined;
  if (replay) {
    const replayed = await replayRecordedCall(state, replay, call, activityId);
    if (replayed) return replayed;
  }
  let approval: ApprovalRecord | null = null;
  const decided = (result: ToolResult): ToolResult =>
    withDeciders(approval?.outcome === 'approved' ? withApproval(result, approval) : result, deciders);
  if (policy.gated || hookDecision?.requiresApproval) {
    // One wait, naming what asked besides hitl_tools (an allow rule cannot lift hitl_tools: it asked for nothing).
    approval = await approvals.awaitDecision(
      call,
      step,
      index,
      deciders.filter((decider) => decider.action === 'require_approval'),
      { description: state.toolDescriptions[call.name], dangerous: config.dangerous_tools?.includes(call.name) === true },
    );
    const hookFailure = await approvalDecidedHooks(state, call, approval, `${activityId}.approval-hooks`);
    if (approval.outcome !== 'approved') return decided(unapprovedResult(call, step, approval));
    if (hookFailure)
      return decided(
        workflowErrorResult(
          call,
          step,
          Date.now(),
          `Error: the call to '${call.name}' did not run: ${describeHookFailure(hookFailure)}.`,
          ErrorCode.hookFailed,
        ),
      );
  }
  if (route.kind === 'subagents') return decided(await runSubagents(state, call, activityPrefix));
  // Only an agent that requires proofs had its approvals verified (workers requiring them check this mark).
  const verified = approval && config.require_verified_decisions === true ? { approvalVerified: true as const } : {};
  const approvalId = approval ? { approvalId: approval.approvalId, ...verified } : {};
  // With emit_mcp_progress: false the tools' progress is not shown live either.
  const quietProgress = config.emit_mcp_progress ? {} : { quietProgress: true as const };
  state.runningTools.push(call.name);
  try {
    if (route.kind === 'mcp') {
      const mcpTool = state.mcpTools.get(call.name)!;
      // MCP failures are results already: only a lost worker or a timeout reaches the retry policy.
      const input = {
        server: mcpTool.server,
        mcpName: mcpTool.mcpName,
        call,
        step,
        injectedArgNames: state.injectedArgNames,
        ...approvalId,
        ...quietProgress,
        ...toolCallHooks(state),
      };
      return decided(
        await retriedCall(state, 'mcp-tool', activityId, (attempt) =>
          proxyActivities<AgentActivities>(toolActivityOptions(attempt, state.timeouts)).callMcpTool(input),
        ),
      );
    }
    const request: RunToolInput = {
      call,
      step,
      injectedArgNames: state.injectedArgNames,
      offloadThreshold: config.offload_threshold,
      ...approvalId,
      ...quietProgress,
      ...resourceOf(state),
      ...toolCallHooks(state),
    };
    const result = await retriedCall(state, 'tool', activityId, (attempt) =>
      proxyActivities<AgentActivities>(toolActivityOptions(attempt, state.timeouts)).runTool({ ...request, ...attempt.input }),
    );
    // The model can read an offloaded result from the next step on.
    if (result.metadata.offloaded_artifact_id && !state.activeTools.includes(READ_ARTIFACT_TOOL)) state.activeTools.push(READ_ARTIFACT_TOOL);
    return decided(result.errorCode === ErrorCode.toolNotFound ? unavailableOnWorkers(state, call, result) : result);
  } catch (error) {
    if (isCancellation(error)) throw error;
    return decided(
      workflowErrorResult(call, step, Date.now(), `Error: tool '${call.name}' did not complete: ${describeFailure(error)}`, ErrorCode.toolFailed),
    );
  } finally {
    state.runningTools.splice(state.runningTools.indexOf(call.name), 1);
  }
}

/**
 * A tool of this agent (its config or a skill's `allowed-tools`) that the worker does not have:
 * the model is told which tools this agent has (not the worker's), without the ones known to be
 * missing, and the run says so once per tool (`tool-unavailable`).
 */
function unavailableOnWorkers(state: LoopState, call: ToolCall, result: ToolResult): ToolResult {
  if (!state.unavailableTools.includes(call.name)) {
    state.unavailableTools.push(call.name);
    log.warn(`No worker of this run has tool '${call.name}'`, { toolName: call.name, step: state.step });
    state.events.push({ type: 'tool-unavailable', step: state.step, toolName: call.name });
  }
  const available = availableTools(state).filter((name) => !state.unavailableTools.includes(name));
  return {
    ...result,
    content: `Error: tool '${call.name}' is not available: no worker of this run has it. Available tools: ${available.join(', ') || 'none'}`,
  };
}

/** A tool try's activity options. Tool errors are results, not failures: only a lost worker or a timeout reaches `retry`. */
function toolActivityOptions({ activityId, retry }: CallTry, timeouts: RunTimeouts): ActivityOptions {
  return {
    activityId,
    summary: activitySummary(activityId, `tool ${activityId.split('.')[2] ?? ''}`),
    startToCloseTimeout: timeouts.toolMs,
    heartbeatTimeout: timeouts.heartbeatMs,
    retry,
  };
}

/** Lists the tools of the agent's MCP servers at the start of a run; a server that is down is reported, not fatal. */
export async function discoverMcpTools(state: LoopState): Promise<void> {
  const { config } = state;
  const { listMcpTools } = proxyActivities<AgentActivities>({
    activityId: 'mcp.list-tools',
    summary: `list tools of MCP servers ${config.mcp_servers.map((server) => server.name).join(', ')}`,
    startToCloseTimeout: '2m',
    retry: { maximumAttempts: 3 },
  });
  const listing = await listMcpTools(config.mcp_servers);
  for (const { server, mcpName, ...spec } of listing.tools) {
    state.mcpTools.set(spec.name, { server: config.mcp_servers.find((candidate) => candidate.name === server)!, mcpName, spec });
    if (!state.activeTools.includes(spec.name)) state.activeTools.push(spec.name);
  }
  for (const unavailable of listing.unavailable)
    state.events.push({ type: 'mcp-server-unavailable', server: unavailable.server, error: unavailable.error });
}
