// The chat's approval prompts: one gated call asked at a time, decided only by an explicit answer, withdrawn when decided elsewhere.
import type { RunHandle } from '../../client/run-handle';
import type { ApprovalRequest } from '../../protocol/run-status-types';
import { describeError } from '../describe-error';
import { APPROVAL_ANSWER_HELP, parseApprovalAnswer } from './approval-answer';
import { describeApprovalRequest, describeFullArguments } from './approval-question';
import type { ChatIo } from './chat-io';

/**
 * Holds the calls waiting for this person's decision, in the order they were requested, and asks
 * about the first. A request is checked against the run's `pendingApprovals` before it is asked,
 * so a chat that attaches to a running turn does not ask about calls decided before it came. A
 * call decided elsewhere (the console, `durable-agents approve`) or timed out is withdrawn.
 */
export class ApprovalDesk {
  private readonly waiting: ApprovalRequest[] = [];
  private readonly settled = new Set<string>();

  constructor(
    private readonly run: RunHandle,
    private readonly io: ChatIo,
    private readonly decidedBy: string,
    private readonly onChange: () => void,
  ) {}

  /** The call asked about now, if any: a typed line answers it. */
  get active(): ApprovalRequest | null {
    return this.waiting[0] ?? null;
  }

  /** A call asked for approval: asked now, or after the ones before it; nothing when it is no longer pending. */
  async requested(request: ApprovalRequest): Promise<void> {
    const pending = await this.run.status().then(
      (status) => status.pendingApprovals.some((candidate) => candidate.approvalId === request.approvalId),
      // No worker answered: ask anyway; the decision is refused if it came too late.
      () => true,
    );
    if (!pending || this.settled.has(request.approvalId) || this.waiting.some((waiting) => waiting.approvalId === request.approvalId)) return;
    this.waiting.push(request);
    if (this.waiting.length === 1) this.ask();
    this.onChange();
  }

  /** The call was decided (here or elsewhere) or timed out: it is not asked about (any more). */
  decided(approvalId: string): void {
    this.settled.add(approvalId);
    const index = this.waiting.findIndex((waiting) => waiting.approvalId === approvalId);
    if (index < 0) return;
    this.waiting.splice(index, 1);
    if (index === 0 && this.waiting.length > 0) this.ask();
    this.onChange();
  }

  /** The turn ended: what it left unasked is gone with it. */
  clear(): void {
    this.waiting.length = 0;
    this.onChange();
  }

  /** Prints every argument of the call asked about now, whole (the `/full` command). */
  showFull(): void {
    const active = this.active;
    this.io.say(active ? `${describeFullArguments(active)}\n` : 'No call is waiting for your decision.\n');
  }

  /** A line typed at the approval prompt: decides when it is explicit, asks again otherwise. */
  async answer(line: string): Promise<void> {
    const request = this.active;
    if (!request) return;
    const answer = parseApprovalAnswer(line);
    if (answer === null) {
      this.io.say(`${APPROVAL_ANSWER_HELP} (${request.toolName}, approval ${request.approvalId}; /full shows its arguments)\n`);
      return;
    }
    // Taken off first, so that a line typed while the decision travels is not read as a second answer.
    this.decided(request.approvalId);
    try {
      const receipt =
        answer.decision === 'approve'
          ? await this.run.approve(request.approvalId, { decidedBy: this.decidedBy, via: 'chat' })
          : await this.run.reject(request.approvalId, {
              reason: answer.reason ?? `rejected in the chat by ${this.decidedBy}`,
              decidedBy: this.decidedBy,
              via: 'chat',
            });
      this.io.say(
        receipt.outcome === null
          ? `(${request.approvalId}: your ${answer.decision} is recorded; it applies when a worker runs the thread)\n`
          : `(${request.approvalId}: ${receipt.outcome} by ${this.decidedBy})\n`,
      );
    } catch (error) {
      this.io.say(`! ${request.approvalId}: ${describeError(error)}\n`);
    }
  }

  private ask(): void {
    const request = this.waiting[0];
    if (request) this.io.say(`${describeApprovalRequest(request).join('\n')}\n`);
  }
}
