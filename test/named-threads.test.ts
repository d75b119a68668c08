import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineAgent } from '../src/agents/define-agent';
import { decode } from '../src/history/history-events';
import { renderThreadTranscript } from '../src/history/thread-render';
import { AgentNotFoundError } from '../src/protocol/agent-errors';
import { ErrorCode } from '../src/protocol/errors';
import { AgentVersionAttribute } from '../src/protocol/search-attributes';
import type { ModelScriptInput } from '../src/models/scripted-model';
import { WorkerDeployments } from '../src/client/worker-deployments';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * Threads created by an agent's name (issue #42, item 3): each turn answers with the newest
 * definition the thread's workers offer, recorded per turn; a redeploy reaches every open thread at
 * its next turn and never in the middle of one; a pinned thread stays on its version.
 */

const TURNS = 5;
/** Open threads that must all move to the new definition at their next turn. */
const FLEET = 100;

/** A script that answers every step with the version's own words (turn N is step N: one step a turn). */
function versionScript(version: string): ModelScriptInput {
  return {
    replies: Array.from({ length: TURNS }, (_, index) => ({
      text: `${version} answers turn ${index + 1}`,
      expect: { systemIncludes: `You are support ${version}.` },
    })),
  };
}

const scripts = { v1: versionScript('v1'), v2: versionScript('v2') };
const v1 = defineAgent({ config: { name: 'support', model: 'scripted:v1', instructions: 'You are support v1.' }, label: 'release-1' });
const v2 = defineAgent({ config: { name: 'support', model: 'scripted:v2', instructions: 'You are support v2.' }, label: 'release-2' });
const tools = createTestTools().tools;

let first: TestEnvironment;
let second: TestEnvironment | undefined;

beforeAll(async () => {
  first = await createTestEnvironment({ tools, scripts, agents: [v1] });
});

afterAll(async () => {
  await second?.close();
  await first?.close().catch(() => undefined);
});

/** Sends `text` and waits for its turn's answer. */
async function answer(env: TestEnvironment, threadId: string, text: string, options: Parameters<TestEnvironment['agents']['thread']>[1] = {}) {
  const turn = await env.agents.thread(threadId, { agent: 'support', ...options }).send(text);
  return turn.result();
}

/** How many times the thread's current execution asked its workers for its agent (`resolveAgent` markers). */
async function resolutionsIn(env: TestEnvironment, threadId: string): Promise<number> {
  const history = await env.client.workflow.getHandle(threadId).fetchHistory();
  return (history.events ?? []).filter(
    (event) =>
      decode<{ activity_type?: string }>(event.markerRecordedEventAttributes?.details?.['data']?.payloads?.[0])?.activity_type === 'resolveAgent',
  ).length;
}

/** Runs `work` on every item, `width` at a time. */
async function inBatches<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let index = 0; index < items.length; index += width) await Promise.all(items.slice(index, index + width).map(work));
}

describe('a thread created by its agent name', () => {
  const threadId = `named-thread-${Date.now()}`;
  const pinnedId = `named-thread-pinned-${Date.now()}`;
  const fleet = Array.from({ length: FLEET }, (_, index) => `named-fleet-${Date.now()}-${index}`);

  it('answers with the definition the workers offer, and refuses an unknown name before creating anything', async () => {
    for (const turn of [1, 2]) {
      const result = await answer(first, threadId, `question ${turn}`);
      expect(result).toMatchObject({ output: `v1 answers turn ${turn}`, agentVersion: { name: 'support', version: v1.version, label: 'release-1' } });
    }
    // An unversioned worker's build id names its definitions: turn 2 on the same workers did not ask again.
    expect(await resolutionsIn(first, threadId)).toBe(1);
    expect(await answer(first, pinnedId, 'question 1', { pin: true })).toMatchObject({ agentVersion: { version: v1.version } });
    await inBatches(fleet, 20, async (id) => void (await answer(first, id, 'question 1')));
    const status = await first.agents.thread(threadId).status();
    expect(status).toMatchObject({ agent: 'support', agentVersion: { version: v1.version } });
    expect(status.pinned).toBeUndefined();
    expect((await first.agents.thread(pinnedId).status()).pinned).toBe(true);

    const unknown = await first.agents
      .thread(`named-unknown-${Date.now()}`, { agent: 'suport' })
      .send('hello')
      .catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(AgentNotFoundError);
    const inline = await first.agents
      .thread(threadId, { config: { name: 'support', model: 'scripted:v1' } })
      .send('hello')
      .catch((error: unknown) => error);
    expect(inline).toMatchObject({ code: ErrorCode.threadConfigMismatch });
  });

  it('after a redeploy, answers its next turns with the new definition; history and AgentVersion name both; a pinned thread stays', async () => {
    await first.close();
    second = await createTestEnvironment({ tools, scripts, agents: [v2], taskQueue: first.taskQueue });
    for (const turn of [3, 4, 5]) {
      const result = await answer(second, threadId, `question ${turn}`);
      expect(result).toMatchObject({ output: `v2 answers turn ${turn}`, agentVersion: { version: v2.version, label: 'release-2' } });
    }
    const transcript = renderThreadTranscript(await second.agents.thread(threadId).history());
    expect(transcript).toContain(`── Turn 2 (started) · support@${v1.version} (release-1) ──`);
    expect(transcript).toContain(`── Turn 3 (started) · support@${v2.version} (release-2) ──`);
    await eventually(async () => {
      const description = await second!.client.workflow.getHandle(threadId).describe();
      return description.typedSearchAttributes.get(AgentVersionAttribute) === `support@${v2.version}`;
    });
    // The workers no longer offer v1: the pinned thread keeps the definition it resolved.
    expect(await answer(second, pinnedId, 'question 2', { pin: true })).toMatchObject({
      output: 'v1 answers turn 2',
      agentVersion: { version: v1.version },
    });
    await second.agents.thread(threadId).close();
    await recordHistory('named-thread', second.agents.getRun(threadId));
  });

  it('on a Worker Deployment build, asks its workers once per build instead of before every turn', async () => {
    const deployment = { deploymentName: `named-threads-${Date.now()}`, buildId: 'b1' };
    const versioned = await createTestEnvironment({ tools, scripts, agents: [v1], deployment, taskQueue: `named-versioned-${Date.now()}` });
    try {
      const deployments = new WorkerDeployments(versioned.client);
      await eventually(() => deployments.setCurrent(deployment.deploymentName, deployment.buildId).then(() => true), 60_000);
      const id = `named-versioned-${Date.now()}`;
      for (const turn of [1, 2, 3]) expect((await answer(versioned, id, `question ${turn}`)).output).toBe(`v1 answers turn ${turn}`);
      expect(await resolutionsIn(versioned, id)).toBe(1);
      await versioned.agents.thread(id).close();
      await recordHistory('named-thread-versioned', versioned.agents.getRun(id));
    } finally {
      await versioned.close();
    }
  });

  it(`moves each of ${FLEET} open threads to the new definition at its next turn`, async () => {
    const versions = new Map<string, number>();
    await inBatches(fleet, 20, async (id) => {
      const result = await answer(second!, id, 'question 2');
      expect(result.output).toBe('v2 answers turn 2');
      versions.set(result.agentVersion!.version, (versions.get(result.agentVersion!.version) ?? 0) + 1);
    });
    expect(Object.fromEntries(versions)).toEqual({ [v2.version]: FLEET });
  });
});
