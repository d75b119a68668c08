// One chat over a thread: messages typed (also while a turn runs), turns followed, approvals asked, Ctrl-C that asks before leaving a turn.
import type { ThreadHandle } from '../../client/thread-handle';
import type { TurnHandle } from '../../client/turn-handle';
import type { RunEvent } from '../../protocol/run-events';
import type { ThreadPolicy } from '../../protocol/thread-types';
import { describeError } from '../describe-error';
import { ApprovalDesk } from './approval-desk';
import type { ChatIo } from './chat-io';
import { showThreadOnOpen } from './chat-history';
import { TurnFollower } from './turn-follower';

/** What a message typed while a turn runs does (the thread's policies that keep the message). */
export type WhileBusyPolicy = Extract<ThreadPolicy, 'enqueue' | 'inject' | 'interrupt'>;

/** The while-busy policies, for validation and help texts. */
export const WHILE_BUSY_POLICIES: readonly WhileBusyPolicy[] = ['enqueue', 'inject', 'interrupt'];

const WHILE_BUSY_MEANING: Record<WhileBusyPolicy, string> = {
  enqueue: 'waits for its own turn after the running one',
  inject: 'joins the running turn (its next model call sees it)',
  interrupt: 'stops the running turn at its next safe point and gets a turn of its own',
};

export interface ChatSessionOptions {
  thread: ThreadHandle;
  io: ChatIo;
  /** Who decides the approvals asked here (recorded with each decision). */
  decidedBy: string;
  whileBusy: WhileBusyPolicy;
  /** Turns of history shown when the chat opens on a thread that exists. */
  historyTurns: number;
}

const HELP = [
  'Commands: /quit leaves (the thread stays; a running turn goes on), /close closes the thread,',
  '  /while-busy enqueue|inject|interrupt sets what a message typed during a turn does,',
  '  /full prints the arguments of the call waiting for your decision, /help this.',
  '  Ctrl-C at the prompt leaves; during a turn it asks first. Ctrl-D on an empty line leaves.',
].join('\n');

/** Runs the chat until the person leaves, the input ends or the thread is closed from here. */
export class ChatSession {
  private readonly follower: TurnFollower;
  private readonly approvals: ApprovalDesk;
  private whileBusy: WhileBusyPolicy;
  private leaveAsked = false;
  private leaving = false;
  private closed = false;

  constructor(private readonly options: ChatSessionOptions) {
    this.whileBusy = options.whileBusy;
    this.follower = new TurnFollower(
      options.io,
      (event, turn) => this.onEvent(event, turn),
      () => this.updatePrompt(),
    );
    this.approvals = new ApprovalDesk(options.thread.run, options.io, options.decidedBy, () => this.updatePrompt());
    options.io.onInterrupt(() => this.interrupt());
  }

  async run(): Promise<void> {
    const { io, thread } = this.options;
    const opened = await showThreadOnOpen(thread, this.options.historyTurns, (text) => io.write(text));
    for (const turn of opened?.unfinishedTurns ?? []) this.follower.add(thread.turn(turn));
    io.say(`Thread ${thread.threadId}. Type a message; /help lists the commands.\n`);
    this.updatePrompt();
    try {
      for (;;) {
        if (!io.interactive) await this.readyForPipedLine();
        const line = this.leaving ? null : await io.next();
        if (line === null || (await this.handle(line)) === 'leave') break;
      }
    } finally {
      this.leave();
    }
  }

  /** One line typed: a command, an answer to the approval prompt, or a message. */
  private async handle(line: string): Promise<'leave' | void> {
    this.leaveAsked = false;
    const { io, thread } = this.options;
    const [command, ...rest] = line.trim().split(/\s+/);
    switch (command) {
      case '/quit':
      case '/exit':
        return 'leave';
      case '/close':
        await thread.close('closed from the chat').then(
          () => {
            this.closed = true;
            io.say(`Thread ${thread.threadId} closed.\n`);
          },
          (error: unknown) => io.say(`! ${describeError(error)}\n`),
        );
        return 'leave';
      case '/help':
        return void io.say(`${HELP}\n`);
      case '/full':
        return this.approvals.showFull();
      case '/while-busy':
        return this.setWhileBusy(rest[0]);
    }
    if (command?.startsWith('/')) return void io.say(`Unknown command ${command}.\n${HELP}\n`);
    if (this.approvals.active) return this.approvals.answer(line);
    if (!line.trim()) return;
    await this.send(line);
  }

  private async send(text: string): Promise<void> {
    const { io, thread } = this.options;
    const busy = this.follower.busy;
    let turn: TurnHandle;
    try {
      turn = await thread.send(text, { policy: this.whileBusy });
    } catch (error) {
      return void io.say(`! not sent: ${describeError(error)}\n`);
    }
    const { disposition } = turn.receipt;
    if (disposition === 'injected') io.say(`(joined turn ${turn.turn}: its next model call sees it)\n`);
    else if (busy || disposition !== 'started')
      io.say(`(${disposition === 'interrupting' ? 'interrupts the running turn; ' : ''}turn ${turn.turn} answers it)\n`);
    if (disposition !== 'injected') this.follower.add(turn);
  }

  private setWhileBusy(policy: string | undefined): void {
    if (WHILE_BUSY_POLICIES.includes(policy as WhileBusyPolicy)) this.whileBusy = policy as WhileBusyPolicy;
    else if (policy !== undefined) this.options.io.say(`/while-busy: must be one of ${WHILE_BUSY_POLICIES.join(', ')}, not '${policy}'\n`);
    this.options.io.say(`A message typed while a turn runs ${WHILE_BUSY_MEANING[this.whileBusy]} (${this.whileBusy}).\n`);
    this.updatePrompt();
  }

  private onEvent(event: RunEvent, turn: TurnHandle): void {
    if (event.type === 'approval-requested') void this.approvals.requested(event.request);
    else if (event.type === 'approval-decided') this.approvals.decided(event.approvalId);
    else if (event.type === 'turn-completed' && event.turn === turn.turn) this.approvals.clear();
  }

  /** Ctrl-C: leaves at an idle prompt; during a turn it asks first (a second Ctrl-C leaves). */
  private interrupt(): void {
    const running = this.follower.currentTurn;
    if (this.leaveAsked || running === null) return this.leaveNow();
    this.leaveAsked = true;
    this.options.io.say(
      `Turn ${running} keeps running on the server whether you stay or leave (durably: \`durable-agents chat --thread ${this.options.thread.threadId}\` picks it up again). Press Ctrl-C again to leave, or type to stay.\n`,
    );
  }

  private leaveNow(): void {
    this.leaving = true;
    this.options.io.close();
  }

  private leave(): void {
    const { io, thread } = this.options;
    const running = this.follower.currentTurn;
    this.follower.leave();
    if (!this.closed)
      io.write(
        `Left the chat. Thread ${thread.threadId} stays${running !== null ? ` and turn ${running} goes on` : ''}: \`durable-agents chat --thread ${thread.threadId}\` continues it.\n`,
      );
    this.leaving = true;
    io.close();
  }

  /** Piped input is read only when the chat would take it: no turn runs, or a call waits for a decision. */
  private async readyForPipedLine(): Promise<void> {
    while (!this.leaving && this.follower.busy && !this.approvals.active) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  private updatePrompt(): void {
    const active = this.approvals.active;
    const running = this.follower.currentTurn;
    this.options.io.setPrompt(
      active ? `approve ${active.toolName}? [y/n] ` : running !== null ? `you [turn ${running} running, ${this.whileBusy}]> ` : 'you> ',
    );
  }
}
