import { createModelStep, type ModelStepDependencies } from './model-step';
import { createRunTool, type RunToolDependencies } from './run-tool';
import { createCompactConversation } from './compact-conversation';
import { createMcpActivities, type McpDependencies } from './mcp-activities';
import { createSkillActivities, type SkillDependencies } from './skill-activities';
import { createSaveConversation } from './save-conversation';
import { createTurnResultActivities } from './carried-turn-results';
import { createReadCarriedToolResults } from './carried-tool-results';
import { createLoadForkOrigin } from './load-fork-origin';
import { createListWorkerTools } from './list-worker-tools';
import { createListWorkerAgents, type WorkerAgentsDependencies } from './list-worker-agents';
import { createResolveAgent, type AgentResolutionDependencies } from './resolve-agent';
import { createVerifyDecision, type DecisionVerificationDependencies } from './verify-decision';
import { createReplayToolCall, type ReplayDependencies } from './replay-tool-call';
import { createCheckSearchAttributes, type SearchAttributesDependencies } from './check-search-attributes';
import { createLifecycleHooks, type LifecycleHookDependencies } from './lifecycle-hooks';
import { createResolveInstructions, type InstructionsDependencies } from './resolve-instructions';
import { createReserveModelCall, type ReserveModelCallDependencies } from './reserve-model-call';
import { createConcurrencySlotActivities, type ConcurrencySlotDependencies } from './concurrency-slot-activities';
import { createPostThreadMessage, type ThreadPostDependencies } from './post-thread-message';
import { createDeliverA2aPush, type A2aPushDependencies } from './deliver-a2a-push';
import type { ReadActivityType } from '../history/activity-readers';

export type ActivityDependencies = ModelStepDependencies &
  RunToolDependencies &
  McpDependencies &
  SkillDependencies &
  ReplayDependencies &
  SearchAttributesDependencies &
  LifecycleHookDependencies &
  InstructionsDependencies &
  ReserveModelCallDependencies &
  ConcurrencySlotDependencies &
  WorkerAgentsDependencies &
  ThreadPostDependencies &
  AgentResolutionDependencies &
  DecisionVerificationDependencies &
  A2aPushDependencies;

/**
 * All activities of an agent run, built from their dependencies (providers, tool registry,
 * conversation source) so tests and workers pass real or scripted ones.
 */
export function createActivities(dependencies: ActivityDependencies) {
  return {
    modelStep: createModelStep(dependencies),
    runTool: createRunTool(dependencies),
    compactConversation: createCompactConversation(dependencies),
    saveConversation: createSaveConversation(dependencies),
    readCarriedToolResults: createReadCarriedToolResults(dependencies),
    loadForkOrigin: createLoadForkOrigin(dependencies),
    listWorkerTools: createListWorkerTools(dependencies),
    listWorkerAgents: createListWorkerAgents(dependencies),
    // A local activity: a named run's or thread's definition, recorded as a marker.
    resolveAgent: createResolveAgent(dependencies),
    // A local activity: the verdict on a decision's proof (require_verified_decisions), recorded as a marker.
    verifyDecision: createVerifyDecision(dependencies),
    replayToolCall: createReplayToolCall(dependencies),
    // A local activity of runAgent in your own workflows (durable-agents/workflow).
    checkSearchAttributes: createCheckSearchAttributes(dependencies),
    runLifecycleHooks: createLifecycleHooks(dependencies),
    resolveInstructions: createResolveInstructions(dependencies),
    ...createTurnResultActivities(dependencies),
    reserveModelCall: createReserveModelCall(dependencies),
    ...createConcurrencySlotActivities(dependencies),
    // The one activity of a thread schedule's fire (scheduledThreadPost).
    postThreadMessage: createPostThreadMessage(dependencies),
    // The one activity of an A2A task's push workflow (a2aPushDelivery): follows the task, posts its changes.
    deliverA2aPush: createDeliverA2aPush(dependencies),
    ...createMcpActivities(dependencies),
    ...createSkillActivities(dependencies),
  };
}

/**
 * Every activity reads back from a run's history: src/history/activity-readers.ts has its line (a
 * reader, or null with the reason it is not shown), and no line there names an activity that
 * does not exist. An activity added above without its line fails to compile here, naming it. The
 * check sits on this side because the history reader must not import the activities: the replay
 * activity reads histories through it.
 */
type ReadBack<Activities extends Record<ReadActivityType, unknown> & Record<Exclude<keyof Activities, ReadActivityType>, never>> = Activities;

/** The activities of an agent run, by name: what workflows call through `proxyActivities`. */
export type AgentActivities = ReadBack<ReturnType<typeof createActivities>>;
