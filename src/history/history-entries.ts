import type { ForkEdit } from '../protocol/fork-types';
import type { ToolCall, Usage } from '../protocol/messages';
import type { AgentRunResult, ConversationRef, ModelStepResult, ToolResult } from '../protocol/run-types';

/** The entries of a run's transcript: what `history` shows, one per thing that happened. */

/** A tool call as the transcript shows it: who ran it, its arguments and what came back. */
/** What every entry made from an activity has: where it stands, when it ran, how often it was tried. */
export interface ActivityEntryTiming {
  step: number;
  /** The activity's id; for calls the workflow answers itself, `step-<n>.call-<id>`. */
  activityId: string;
  at: string;
  durationMs: number | null;
  attempts: number;
}

export interface ToolEntry extends ActivityEntryTiming {
  kind: 'tool';
  tool: string;
  callId: string;
  /**
   * `activity`: the tool activity (`runTool`); `mcp`: an MCP server through `callMcpTool`;
   * `workflow`: answered by the workflow itself (handoffs, unknown tools, rejected or timed-out
   * approvals, sub-agent jobs and their refusals), so its result comes from the run's result;
   * `recorded`: an evaluation run's call answered with the recorded run's result (no tool ran).
   */
  via: 'activity' | 'mcp' | 'workflow' | 'recorded';
  /** The MCP server, for `via: 'mcp'`. */
  server?: string;
  args: unknown;
  /** Null while the call runs, or when the history does not (yet) hold it (a run still going). */
  result: ToolResult | null;
  failure: string | null;
}

export type TranscriptEntry =
  | {
      kind: 'started';
      at: string;
      agent: string;
      model: string;
      /** A named agent's definition: `name@version` and its label (docs/agents.md). */
      agentVersion?: string;
      /** The run's task; absent for a thread's execution (a thread has messages, no task). */
      task?: string;
      continued: boolean;
      handoffFrom?: string;
      /** Set on a fork's first execution: the run and step it continues, and the edits it made to that run's conversation (what each replaced, and with what). */
      forkOf?: { workflowId: string; runId: string; step: number; edits?: ForkEdit[] };
    }
  | (ActivityEntryTiming & {
      kind: 'model';
      model: string;
      /** The loop-detection nudge the run added to the conversation before this step (docs/loop-detection.md). */
      loopNudge?: string;
      /** The conversation the step was given (its epoch and length in this execution). */
      conversation: ConversationRef | null;
      text: string | null;
      toolCalls: ToolCall[];
      /** Why the answer failed `output_type` (the run asks the model for a correction). */
      outputError: string | null;
      /** Set when the prompt was over the `limit:` budget (no model was called). */
      overBudget: { promptTokens: number; limitTokens: number } | null;
      /** Set when the call's worst case was more than the run's cost limit left (no model was called). */
      overCostLimit?: ModelStepResult['overCostLimit'] | null;
      /** The call's tokens and cost (USD as the worker priced it; null: unknown price; absent: a worker before pricing). */
      usage?: Usage | null;
      costUsd?: number | null;
      failure: string | null;
    })
  | (ActivityEntryTiming & {
      /** The compaction activity: the older turns summarised into a new conversation epoch. */
      kind: 'compaction';
      model: string;
      /** How many messages after the task were summarised. */
      summarisedMessages: number;
      summary: string | null;
      /** As a model entry's. */
      usage?: Usage | null;
      costUsd?: number | null;
      failure: string | null;
    })
  | ToolEntry
  | { kind: 'mcp-tools'; at: string; tools: string[]; unavailable: Array<{ server: string; error: string }>; failure: string | null }
  | {
      /** The skill sources read by the worker (at the start, and after a gap in the watcher's batches). */
      kind: 'skills-loaded';
      at: string;
      sources: Array<{ source: string; skills: string[]; errors: Array<{ file: string; message: string }> }>;
      failure: string | null;
    }
  | {
      /** A sub-agent job: a child workflow of this run. */
      kind: 'child';
      at: string;
      workflowId: string;
      runId: string | null;
      agent: string;
      task: string;
      status: string;
      durationMs: number | null;
      result: AgentRunResult | null;
      failure: string | null;
    }
  | {
      kind: 'signal' | 'update';
      at: string;
      name: string;
      payload: unknown;
      /**
       * A signal the run ignored, and why (an invalid payload, an unknown, decided or expired
       * approval, a skills batch not newer than the run's or that showed a gap).
       */
      ignored?: string;
      /** A skills batch the run applied: which version of which source. */
      applied?: string;
    }
  | {
      kind: 'finished';
      at: string;
      status: string;
      result: AgentRunResult | null;
      failure: string | null;
      /** A failed run's stable error code (the failure's type, such as `ModelAuthFailed`), when it has one. */
      failureType?: string | null;
    };

export interface Transcript {
  workflowId: string;
  runId: string;
  entries: TranscriptEntry[];
}
