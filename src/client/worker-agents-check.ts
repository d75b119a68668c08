// Refusing a named agent the task queue's workers do not offer, or an override they would refuse, before a run or thread starts.
import type { Client } from '@temporalio/client';
import { assertOverridesApply } from '../agents/agent-overrides';
import { AgentNotFoundError, offeredVersions } from '../protocol/agent-errors';
import type { AgentOffer } from '../protocol/agent-offers';
import type { AgentReference } from '../protocol/agent-reference';
import { askWorkers } from './worker-probe';
import { WireName } from '../protocol/wire-names';
import { WorkerAnswers } from './worker-answers';

/** How long the workers have to say which agents they offer before a start (which goes ahead without an answer). */
const START_PROBE_TIMEOUT = '10s';

/**
 * The check `startRun({ agent })` and a named thread's creation make: the agent the reference names
 * (at its version or label, if given) must be among those the task queue's workers offer, and its
 * overrides among what the definition allows. A start is never held back for want of an answer
 * (no worker polling, none answering in 10 s): the run starts and resolves its agent when a worker
 * takes it, failing with `AgentNotFound` then if none defines it. Answers are kept for a minute per
 * task queue; a name missing from a kept answer is asked about again before it is refused, so a
 * definition deployed a moment ago is found.
 */
export class WorkerAgentsCheck {
  private readonly answers: WorkerAnswers<AgentOffer[]>;

  constructor(client: Client, namespace: string) {
    this.answers = new WorkerAnswers(client, namespace, (taskQueue) =>
      askWorkers<AgentOffer[]>(
        client,
        WireName.workerAgentsWorkflow,
        taskQueue,
        START_PROBE_TIMEOUT,
        'which agents the agent workers offer (asked before a start)',
      ),
    );
  }

  /**
   * The offer `reference` names, or null when the workers did not say.
   * @throws AgentNotFoundError listing what the workers offer; AgentOverrideError naming each refused override.
   */
  async assertOffered(taskQueue: string, reference: AgentReference): Promise<AgentOffer | null> {
    let offers = await this.answers.get(taskQueue);
    if (offers && !offerFor(offers, reference)) offers = await this.answers.get(taskQueue, { fresh: true });
    if (!offers) return null;
    const offer = offerFor(offers, reference);
    if (!offer) {
      const asked = reference.version !== undefined ? `${reference.name}@${reference.version}` : reference.name;
      throw new AgentNotFoundError(asked, offeredVersions(offers));
    }
    assertOverridesApply(offer.name, reference.overrides, offer.overridable);
    return offer;
  }
}

/** The offer of `reference`'s name, at its version (a hash or a label) when it names one. */
function offerFor(offers: readonly AgentOffer[], reference: AgentReference): AgentOffer | undefined {
  return offers.find(
    (offer) =>
      offer.name === reference.name && (reference.version === undefined || reference.version === offer.version || reference.version === offer.label),
  );
}
