// The demo's approval step: a person answers at the terminal (or in the console), or, without a terminal, the demo approves and says so.
import { parseApprovalAnswer } from './chat/approval-answer';
import readline from 'node:readline';
import type { RunHandle } from '../client/run-handle';
import { AgentRuntimeError } from '../protocol/errors';
import type { ApprovalRequest } from '../protocol/run-types';

/** How the demo decides a gated call: ask at the terminal, or approve / reject without asking. */
export type DemoDecision = 'ask' | 'approve' | 'reject';

/** How often the demo looks whether someone decided the call in the console while it asks. */
const DECIDED_ELSEWHERE_POLL_MS = 1_000;

/** The call as a person reads it before deciding: the tool, what it does, and each argument on its own line. */
export function describeCall(request: ApprovalRequest, description: string | undefined): string {
  const lines = [`  ${request.toolName}${description ? ` — ${description}` : ''}`];
  for (const [name, value] of Object.entries(request.args)) lines.push(`    ${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return lines.join('\n');
}

/**
 * Decides `request` of `run` as `mode` says. `ask` prompts on `input` (a terminal) until the answer
 * is yes or no, and stops asking when the call is decided elsewhere (the console) meanwhile.
 */
export async function decideDemoCall(
  run: RunHandle,
  request: ApprovalRequest,
  mode: DemoDecision,
  io: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream; decidedBy: string },
): Promise<void> {
  const say = (line: string) => io.output.write(`${line}\n`);
  let decision: 'approve' | 'reject' | null = mode === 'ask' ? null : mode;
  if (decision === null) {
    decision = await ask(run, request, io);
    if (decision === null) {
      say('  Decided in the console: the run goes on.');
      return;
    }
  } else {
    say(
      `  ${decision === 'approve' ? 'Approving' : 'Rejecting'} it as ${io.decidedBy} (${mode === 'approve' ? 'no terminal to ask at; `npm start -- --reject` rejects instead' : '--reject'}).`,
    );
  }
  try {
    if (decision === 'approve') await run.approve(request.approvalId, { decidedBy: io.decidedBy, via: 'cli' });
    else await run.reject(request.approvalId, { decidedBy: io.decidedBy, via: 'cli', reason: 'Rejected in the demo.' });
    say(`  ${decision === 'approve' ? 'Approved' : 'Rejected'} by ${io.decidedBy}.`);
  } catch (error) {
    // Decided in the console the same moment: the run applied that one and says who.
    if (error instanceof AgentRuntimeError) say(`  Not applied: ${error.message}`);
    else throw error;
  }
}

/** Asks until yes or no; null when the call was decided elsewhere first. */
async function ask(
  run: RunHandle,
  request: ApprovalRequest,
  io: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream },
): Promise<'approve' | 'reject' | null> {
  const prompt = readline.createInterface({ input: io.input, output: io.output });
  const stop = new AbortController();
  const decidedElsewhere = (async () => {
    while (!stop.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, DECIDED_ELSEWHERE_POLL_MS));
      const status = await run.status().catch(() => null);
      if (status && !status.pendingApprovals.some((pending) => pending.approvalId === request.approvalId)) return null;
    }
    return null;
  })();
  const answered = (async () => {
    for (;;) {
      const answer = await new Promise<string>((resolve) => prompt.question('  Send it? Type yes or no: ', resolve));
      const decision = parseApprovalAnswer(answer)?.decision ?? null;
      if (decision) return decision;
      io.output.write('  Please type yes or no (nothing is decided until you do).\n');
    }
  })();
  try {
    return await Promise.race([answered, decidedElsewhere]);
  } finally {
    stop.abort();
    prompt.close();
  }
}
