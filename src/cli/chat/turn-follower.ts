// The chat's turns, followed one after another: each one's events and streamed answer printed, then its tokens.
import { Writable } from 'node:stream';
import type { TurnHandle } from '../../client/turn-handle';
import type { RunEvent } from '../../protocol/run-events';
import type { TurnResult } from '../../protocol/thread-types';
import { describeError } from '../describe-error';
import { followRun, type Followable } from '../commands/run-command';
import type { ChatIo } from './chat-io';
import { formatChatEvent } from './chat-event-line';

/** Thrown into a follow when the person left the chat: the turn goes on on the server. */
class LeftTheChat extends Error {}

/**
 * Follows the chat's turns in order: a message queued behind the running turn is followed once
 * that turn has ended. `onEvent` sees each event after it is printed (approvals are asked there);
 * it must not wait for the person, or the turn's later events would wait too.
 */
export class TurnFollower {
  private readonly pending: TurnHandle[] = [];
  private current: TurnHandle | null = null;
  private newestFollowed = 0;
  private readonly stop = new AbortController();
  private running: Promise<void> | null = null;
  private readonly out: Writable;

  constructor(
    private readonly io: ChatIo,
    private readonly onEvent: (event: RunEvent, turn: TurnHandle) => void,
    private readonly onChange: () => void,
  ) {
    this.out = new Writable({
      decodeStrings: false,
      write: (chunk: string | Buffer, _encoding, done) => {
        io.write(String(chunk));
        done();
      },
    });
  }

  /** True while a turn of the chat runs or waits its turn. */
  get busy(): boolean {
    return this.current !== null || this.pending.length > 0;
  }

  /** The turn being followed now. */
  get currentTurn(): number | null {
    return this.current?.turn ?? null;
  }

  /** Follows `turn` after those before it (a turn already followed or waiting is not added twice). */
  add(turn: TurnHandle): void {
    if (turn.turn <= this.newestFollowed || this.pending.some((waiting) => waiting.turn === turn.turn)) return;
    this.pending.push(turn);
    this.pending.sort((first, second) => first.turn - second.turn);
    this.running ??= this.followAll().finally(() => (this.running = null));
    this.onChange();
  }

  /** Stops printing (the turns go on on the server). */
  leave(): void {
    this.stop.abort();
  }

  private async followAll(): Promise<void> {
    while (!this.stop.signal.aborted && this.pending.length > 0) {
      const turn = this.pending.shift()!;
      this.current = turn;
      this.newestFollowed = Math.max(this.newestFollowed, turn.turn);
      this.onChange();
      try {
        const result = await followRun<TurnResult>(
          this.followable(turn),
          false,
          this.out,
          async (event) => this.onEvent(event, turn),
          formatChatEvent,
        );
        this.io.write(
          `(turn ${result.turn}: ${result.stopReason}${result.stopDetail ? ` (${result.stopDetail})` : ''}, ${result.usage.inputTokens} in / ${result.usage.outputTokens} out tokens)\n`,
        );
      } catch (error) {
        if (!(error instanceof LeftTheChat)) this.io.write(`! turn ${turn.turn}: ${describeError(error)}\n`);
      }
      this.current = null;
      this.onChange();
    }
  }

  /** The turn as `followRun` reads it, stopped when the person leaves. */
  private followable(turn: TurnHandle): Followable<TurnResult> {
    const signal = this.stop.signal;
    return {
      live: (options) => turn.live({ signal: AbortSignal.any([signal, ...(options.signal ? [options.signal] : [])]) }),
      events: () => turn.events({ signal }),
      result: () => (signal.aborted ? Promise.reject(new LeftTheChat()) : turn.result()),
    };
  }
}
