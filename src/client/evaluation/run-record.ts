import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { AgentRuntimeError, ErrorCode } from '../../protocol/errors';
import { toolCallKey } from '../../protocol/recorded-calls';
import type { ResolvedRunInput, AgentRunResult, ToolResult } from '../../protocol/run-types';
import { startedRunInput } from '../../history/started-input';
import { fetchRunChain, transcriptFromEvents } from '../../history/history-view';

/** What an evaluation compares of a finished run, read from its history (its whole continue-as-new chain). */
export interface RunRecord {
  workflowId: string;
  /** The chain's latest execution. */
  runId: string;
  /** The first execution's input: the task (and prior messages) an evaluation replays. */
  input: ResolvedRunInput;
  result: AgentRunResult;
  /**
   * Tool calls of the executor's steps, in the order the run made them, by matching key.
   * `byWorkflow`: the workflow answered the call itself (a handoff, an unknown tool, a denied
   * call), so no recording was looked up for it.
   */
  toolCalls: Array<{ step: number; key: string; byWorkflow: boolean; tool: string; args: unknown; result: ToolResult | null }>;
  /** From the first execution's start to the last one's close. */
  wallTimeMs: number;
}

/**
 * Reads a finished agent run for an evaluation.
 * @throws AgentRuntimeError `RunNotFound` for an unknown run, `EvaluationRefused` for one that is
 * not an agent run or has not completed (there is no answer to compare against).
 */
export async function readRunRecord(client: Client, workflowId: string, runId?: string): Promise<RunRecord> {
  let chain;
  try {
    chain = await fetchRunChain(client, workflowId, runId);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError)
      throw new AgentRuntimeError(ErrorCode.runNotFound, `Unknown run '${workflowId}': no workflow with that id in this namespace`);
    throw error;
  }
  const input = chain[0] ? startedRunInput(chain[0].events) : null;
  if (!input?.config) throw refused(`run ${workflowId} is not an agent run (its input has no agent config)`);
  const entries = chain.flatMap((execution) => transcriptFromEvents(execution.events));
  const finished = [...entries].reverse().find((entry) => entry.kind === 'finished');
  if (!finished || finished.kind !== 'finished' || finished.status !== 'completed' || !finished.result) {
    throw refused(
      `run ${workflowId} has not completed (${finished && finished.kind === 'finished' ? finished.status : 'still running'}): there is no answer to compare against`,
    );
  }
  const started = entries.find((entry) => entry.kind === 'started');
  const toolCalls = entries.flatMap((entry) =>
    entry.kind === 'tool' && entry.step >= 1
      ? [
          {
            step: entry.step,
            key: toolCallKey(entry.tool, entry.args),
            byWorkflow: entry.via === 'workflow' && entry.result?.errorCode !== ErrorCode.toolCallNotRecorded,
            tool: entry.tool,
            args: entry.args,
            result: entry.result,
          },
        ]
      : [],
  );
  return {
    workflowId,
    runId: chain.at(-1)!.runId,
    input,
    result: finished.result,
    toolCalls,
    wallTimeMs: started ? Date.parse(finished.at) - Date.parse(started.at) : 0,
  };
}

function refused(message: string): AgentRuntimeError {
  return new AgentRuntimeError(ErrorCode.evaluationRefused, message);
}
