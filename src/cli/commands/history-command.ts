// `history RUN | THREAD`: a readable transcript from Temporal history; a thread's turn by turn.
import { AgentClient } from '../../client/agent-client';
import { listRunForks, type RunFork } from '../../client/run-forks';
import { readThreadTranscript } from '../../client/thread-history';
import { WorkflowNotFoundError } from '@temporalio/client';
import { AgentConfigError, ErrorCode, ThreadError } from '../../protocol/errors';
import { fetchRunChain, renderTranscript, transcriptOfChain } from '../../history/history-view';
import { renderThreadTranscript } from '../../history/thread-render';
import { isThreadChain } from '../../history/thread-transcript';

/** `history RUN` (a run) or `history THREAD [--turn N]` (a thread, turn by turn). */
export async function historyCommand(
  workflowId: string,
  options: { json?: boolean; runId?: string; turn?: string },
  agents?: AgentClient,
): Promise<void> {
  const turn = turnOf(options.turn);
  const client = agents ?? (await AgentClient.connect());
  try {
    const chain = await fetchRunChain(client.temporal, workflowId, options.runId).catch((error: unknown) => {
      // One error for an id with nothing behind it, whichever read of a thread it came from.
      if (error instanceof WorkflowNotFoundError)
        throw new ThreadError(
          ErrorCode.threadNotFound,
          workflowId,
          `no run or thread ${workflowId}${options.runId ? ` (execution ${options.runId})` : ''} (never started, or deleted)`,
        );
      throw error;
    });
    if (!isThreadChain(chain)) {
      if (turn !== undefined)
        throw new AgentConfigError(`--turn: ${workflowId} is a run, not a thread`, [`--turn: ${workflowId} is a run, not a thread`]);
      const transcript = transcriptOfChain(workflowId, chain);
      const forks = await listRunForks(client.temporal, workflowId);
      return void console.log(
        options.json
          ? JSON.stringify({ ...transcript, forks }, null, 2)
          : [renderTranscript(transcript), ...renderForks(workflowId, forks)].join('\n'),
      );
    }
    const transcript = await readThreadTranscript(client.temporal, workflowId, chain);
    if (turn !== undefined && !transcript.turns.some((each) => each.turn === turn)) {
      const problem = `--turn: thread ${workflowId} has turns ${transcript.turns.map((each) => each.turn).join(', ') || 'none yet'}, not ${turn}`;
      throw new AgentConfigError(problem, [problem]);
    }
    if (options.json)
      return void console.log(
        JSON.stringify(turn === undefined ? transcript : { ...transcript, turns: transcript.turns.filter((each) => each.turn === turn) }, null, 2),
      );
    console.log(renderThreadTranscript(transcript, turn));
  } finally {
    if (!agents) await client.close();
  }
}

function turnOf(turn: string | undefined): number | undefined {
  if (turn === undefined) return undefined;
  const value = Number(turn);
  if (Number.isInteger(value) && value >= 1) return value;
  const problem = `--turn: a turn number (1, 2, …), not '${turn}'`;
  throw new AgentConfigError(problem, [problem]);
}

/** The forks made of the run, after its transcript: where to look for what a fork did differently. */
function renderForks(workflowId: string, forks: RunFork[]): string[] {
  if (forks.length === 0) return [];
  return [
    '',
    `Forks of ${workflowId}:`,
    ...forks.map(
      (fork) =>
        `  ${fork.workflowId} (after step ${fork.step ?? '?'}${fork.edits > 0 ? `, ${fork.edits} ${fork.edits === 1 ? 'edit' : 'edits'}` : ''}, ${fork.status}, started ${fork.startedAt})`,
    ),
  ];
}
