// What a run (or thread) hands to its next execution when it continues as new: pure types.
import type { RunEvent } from './run-events';
import type { CarriedConversation } from './conversation-base';
import type { LoopWatch } from './loop-watch';
import type { HandoffRecord, PlanArtifact, UsageSummary } from './run-status-types';

/** What a run hands to its continuation: the conversation and the counters, nothing in flight. */
export interface CarriedState {
  /** The conversation by reference: a snapshot in the artifact store, its head and last text. */
  conversation: CarriedConversation;
  taskIndex: number;
  step: number;
  usage: UsageSummary;
  /** The newest tool results by reference: an artifact the previous execution wrote (absent when the run had none). */
  toolResultsRef?: StoredToolResults;
  /** Tool results of the run so far, the earlier runs' included. */
  toolResultCount: number;
  plan: PlanArtifact | null;
  compactions: number;
  /** The newest events, so live readers keep their place (event numbers continue). */
  recentEvents: RunEvent[];
  /** The number of the previous execution's newest event, carried or not: numbering goes on after it. */
  lastEventSeq: number;
  continuations: number;
  /** Steps taken before the current agent took over (its max_steps counts from here). */
  stepBase?: number;
  handoffs?: HandoffRecord[];
  /** Loop detection's memory (its newest calls, whether it nudged); absent when the run made no tool call yet. */
  loopWatch?: LoopWatch;
  /** The instructions an instructions provider gave this agent (the next execution uses them, not a new answer). */
  instructions?: string;
}

/**
 * The newest summarised tool results of a run, kept in the artifact store while a continued run
 * carries only this reference: the run reads them back once, when its result needs them.
 */
export interface StoredToolResults {
  artifactId: string;
  /** How many results the artifact holds (at most KEPT_TOOL_RESULTS). */
  count: number;
}
