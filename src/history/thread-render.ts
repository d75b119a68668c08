// A thread's transcript rendered for a terminal: a header a turn, then its steps.
import { agentVersionLabel } from '../protocol/agent-reference';
import { indent, renderEntries, truncate } from './history-render';
import type { ThreadTranscript, TurnTranscript } from './thread-transcript';

/**
 * Renders a thread turn by turn: a header naming the turn and the message(s) it answered (injected
 * ones marked), its steps, tool calls and approvals, then how it ended (stop reason, steps, tokens)
 * and its answer. `turn` renders that turn only.
 */
export function renderThreadTranscript(transcript: ThreadTranscript, turn?: number): string {
  const executions = transcript.runIds.length;
  const lines = [
    `Thread ${transcript.threadId}: ${transcript.turns.length} turn(s) in ${executions} execution(s) (${transcript.runIds.at(-1) ?? ''})`,
  ];
  if (turn === undefined) lines.push(...renderEntries(transcript.outsideTurns.filter((entry) => entry.kind === 'started' && !entry.continued)));
  for (const each of transcript.turns) if (turn === undefined || each.turn === turn) lines.push('', ...renderTurn(each));
  if (turn === undefined) {
    const closing = transcript.outsideTurns.filter(
      (entry) => !(entry.kind === 'started' && !entry.continued) && entry.kind !== 'mcp-tools' && entry.kind !== 'skills-loaded',
    );
    if (closing.length > 0) lines.push('', '── Between turns ──', ...renderEntries(closing));
  }
  return lines.join('\n');
}

function renderTurn(turn: TurnTranscript): string[] {
  const [first, ...others] = turn.messages;
  // A named agent's turn says which definition answered it.
  const version = turn.result?.agentVersion ? ` · ${agentVersionLabel(turn.result.agentVersion)}` : '';
  const lines = [`── Turn ${turn.turn}${first ? ` (${first.disposition})` : ''}${version} ──`];
  if (first) lines.push(indent(`user: ${truncate(first.text, 400)}`));
  for (const message of others) lines.push(indent(`user (${message.disposition}): ${truncate(message.text, 400)}`));
  lines.push(...renderEntries(turn.entries));
  const result = turn.result;
  if (!result) {
    lines.push(indent('(no result recorded: the turn is running, or its result is older than the ones the thread keeps)'));
    return lines;
  }
  const steps = result.lastStep - result.firstStep + 1;
  const failure = result.failure ? ` (${result.failure.type ?? 'failure'}: ${result.failure.message})` : '';
  lines.push(
    `   ⇒ ${result.stopReason}${failure} · steps ${result.firstStep}-${result.lastStep} (${steps}) · ${result.usage.inputTokens} in / ${result.usage.outputTokens} out tokens`,
  );
  if (result.stopDetail) lines.push(indent(result.stopDetail));
  const answer = result.structuredOutput !== undefined ? JSON.stringify(result.structuredOutput) : result.output;
  if (answer) lines.push(indent(`answer: ${truncate(answer, 2_000)}`));
  return lines;
}
