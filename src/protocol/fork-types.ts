// Forks and replay evaluations: where a forked run starts from, the edits it makes, and the recorded run a replay answers from.
import type { ConversationRef } from './activity-types';

/**
 * Where a forked run starts from (`AgentRunWorkflowInput.fork`, built by `AgentClient.fork` from the
 * origin's history): the origin's executor conversation at the end of step `step`, in the
 * execution of its continue-as-new chain that took that step. The fork's first activity reads
 * that conversation (the origin answers the `conversation` query, closed or running) and writes
 * it to the artifact store as the fork's conversation base, the shape continue-as-new hands over,
 * so no start input ever carries a long conversation. Pure types.
 */
export interface ForkOrigin {
  workflowId: string;
  /** The execution that took step `step`. */
  runId: string;
  /** The origin's last step the fork keeps; the fork's first step is `step + 1`. */
  step: number;
  /** The origin's conversation at the end of that step (its epoch in that execution, and its length). */
  conversation: ConversationRef;
  /** Index of the task message in that conversation. */
  taskIndex: number;
  /** A user message the fork adds after step `step` (the CLI's `--task`). */
  message?: string;
  /** Changes to the origin's conversation the fork starts from (`--edit-tool-result`, `--edit-message`), applied by its first activity. */
  edits?: ForkEdit[];
}

/**
 * One change a fork makes to the origin's conversation before its first step, resolved by the
 * client against the origin's history (so the step and call exist) into the position of the
 * message it replaces: `index` in the conversation the fork keeps (the epoch of the forked step;
 * for a tool result, the position of its step's reply).
 * The activity that loads the conversation checks the message there has the expected role (and
 * call id) before replacing its content. `recorded` is what the origin had there (a preview), for
 * `history`. Pure types.
 */
export type ForkEdit =
  | {
      /** The result of one tool call of step `step`: the model's reply and the other results stay. */
      kind: 'tool-result';
      step: number;
      /** The step's reply: the call's result is one of the tool messages after it. */
      index: number;
      callId: string;
      tool: string;
      content: string;
      isError: boolean;
      recorded: string | null;
      /** The call had no result in the origin (the fork is between the step's reply and its tool calls): the edit adds it after the reply. */
      pending?: true;
    }
  | {
      /** The user message step `step` answered, or the text of the model's reply at step `step` (its tool calls stay). */
      kind: 'message';
      step: number;
      index: number;
      role: 'user' | 'assistant';
      content: string;
      recorded: string | null;
    };

/**
 * A replay-evaluation run (`AgentRunWorkflowInput.replay`): the recorded run whose tool results answer
 * this run's tool calls. A call with the same tool and arguments (canonical JSON) as a recorded
 * one gets the recorded result without running the tool; any other call gets an error result,
 * or runs for real with `liveTools`. Pure types.
 */
export interface ReplaySource {
  /** The recorded run (its whole continue-as-new chain, read from its history by the worker). */
  workflowId: string;
  /** The chain's latest execution when the evaluation started. */
  runId: string;
  liveTools: boolean;
  /** The evaluation this run belongs to (the `AgentEvaluation` search attribute). */
  evaluation: string;
  /**
   * Set when the recorded results come from a dataset example, not from a run's history: then
   * `workflowId` is the evaluation run's own id and `runId` is `DATASET_REPLAY_RUN_ID`, and the
   * worker reads these calls from the run's first input. The workflow itself never reads them.
   */
  recordedCalls?: DatasetRecordedCall[];
  /**
   * Set instead (with `recordedCalls` empty) when the example's calls were too big for the input:
   * the artifact that holds them as JSON, in the store the client and the workers share.
   */
  recordedCallsArtifact?: string;
}

/** The `ReplaySource.runId` of an evaluation run answered from a dataset example. */
export const DATASET_REPLAY_RUN_ID = 'dataset';

/** A tool call of a dataset example, with the result the evaluation answers the same call with. */
export interface DatasetRecordedCall {
  tool: string;
  args: unknown;
  result: { content: string; isError: boolean; errorCode?: string };
}

/** What a fork's first activity reads: the origin execution's conversation up to `conversation.count`. */
export interface LoadForkOriginInput {
  origin: { workflowId: string; runId: string };
  conversation: ConversationRef;
  taskIndex: number;
  /** The fork's edits, when it was given some. */
  edits?: ForkEdit[];
}
