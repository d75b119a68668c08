// A model step's billed calls across its attempts: reported in the heartbeat as soon as the provider answers, so no attempt's spend is lost or paid twice.
import { Context } from '@temporalio/activity';
import { jsonBytes } from '../protocol/payload-size';
import {
  addLostCall,
  KEPT_REPLY_LIMIT_BYTES,
  readStepState,
  type BilledCall,
  type KeptReply,
  type StepSpendState,
} from '../protocol/model-step-state';
import type { ModelStepResult } from '../protocol/run-types';
import type { LiveHeartbeat } from './heartbeat';

/**
 * What a model step's provider billed, kept in the step's heartbeat details (key `spend`), which
 * Temporal hands to the next attempt of the same activity (`Context.info.heartbeatDetails`):
 * - the provider's answer is reported at once (`answered`), so an attempt lost after it (a dead
 *   worker, a hook that outlived the step's timeout) is counted by the next attempt's result
 *   (`ModelStepResult.lostCalls`);
 * - the reply itself (after the after-model hooks) is kept when it fits `KEPT_REPLY_LIMIT_BYTES`,
 *   and the next attempt uses it instead of calling (and paying) the provider again.
 * What can still escape is in docs/observability.md ("What is counted when").
 */
export class StepSpend {
  private constructor(
    private readonly live: LiveHeartbeat,
    private readonly state: StepSpendState,
    /** An earlier attempt's reply, to be used instead of a new call. */
    readonly recovered: KeptReply | null,
  ) {}

  /** The spend earlier attempts of this activity left in their heartbeat details (none on a first attempt). */
  static recover(live: LiveHeartbeat): StepSpend {
    const previous = readStepState(Context.current().info.heartbeatDetails).spend;
    if (!previous) return new StepSpend(live, { lost: [] }, null);
    const reply = previous.reply ?? null;
    // An answer without a kept reply is a lost call; one with it is this attempt's, reused.
    const lost = previous.answered && !reply ? addLostCall(previous.lost, previous.answered) : previous.lost;
    const state: StepSpendState = { lost, ...(reply ? { answered: billedOf(reply), reply } : {}) };
    const spend = new StepSpend(live, state, reply);
    // At once: an attempt that dies before its first beat must not leave older details behind.
    live.keep('spend', state);
    return spend;
  }

  /** The provider answered: its usage is reported before anything else can lose it. */
  answered(call: BilledCall): void {
    this.state.answered = call;
    this.live.keep('spend', this.state);
  }

  /** Keeps the reply (its text after the after-model hooks) for a next attempt, when it is small enough. */
  keepReply(reply: KeptReply): void {
    if (jsonBytes({ text: reply.text, toolCalls: reply.toolCalls }) > KEPT_REPLY_LIMIT_BYTES) return;
    this.state.reply = reply;
    this.live.keep('spend', this.state);
  }

  /** What the step's result adds: the lost calls the run must count. */
  resultFields(): Pick<ModelStepResult, 'lostCalls'> {
    return this.state.lost.length > 0 ? { lostCalls: [...this.state.lost] } : {};
  }
}

function billedOf(call: BilledCall): BilledCall {
  return { attempt: call.attempt, usage: call.usage, costUsd: call.costUsd };
}
