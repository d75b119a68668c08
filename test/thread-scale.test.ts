import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TurnHandle } from '../src/client/turn-handle';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';

const TURNS = 1_000;
let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: [],
    scripts: { echoing: { replies: Array.from({ length: TURNS }, () => ({ text: 'Reply to {{user}}' })) } },
  });
});

afterAll(async () => {
  await env?.close();
});

describe('a long thread', () => {
  it(`answers ${TURNS} messages in order, one turn each, continuing as new with a bounded history`, async () => {
    const thread = env.agents.thread(`long-thread-${randomUUID().slice(0, 8)}`, {
      config: { name: 'echoing', model: 'scripted:echoing' },
      historyEventLimit: 2_000,
    });
    const turns: TurnHandle[] = [];
    // Sent five at a time while earlier turns run (the server takes up to 10 updates in flight per
    // workflow; the client retries a busy thread): each message is queued for its own turn.
    for (let next = 1; next <= TURNS; next += 5) {
      const batch = Array.from({ length: Math.min(5, TURNS - next + 1) }, (_, index) => next + index);
      turns.push(...(await Promise.all(batch.map((number) => thread.send(`message ${number}`, { messageId: `m-${number}` })))));
    }
    expect(turns.map((turn) => turn.turn).sort((a, b) => a - b)).toEqual(Array.from({ length: TURNS }, (_, index) => index + 1));

    // Messages of one batch arrive in any order; the last turn answers whichever arrived last.
    const lastTurn = turns.find((turn) => turn.turn === TURNS)!;
    const last = await lastTurn.result();
    expect(last.output).toBe(`Reply to message ${lastTurn.receipt.messageId.slice(2)}`);
    const status = await thread.status();
    expect(status.turnsCompleted).toBe(TURNS);
    // Every recent turn answered the message its receipt named.
    for (const result of status.recentTurns) {
      const sent = turns.find((turn) => turn.turn === result.turn)!;
      expect(result.output).toBe(`Reply to message ${sent.receipt.messageId.slice(2)}`);
    }
    let executions = 0;
    let largest = 0;
    for await (const execution of env.client.workflow.list({ query: `WorkflowId = '${thread.threadId}'` })) {
      executions++;
      largest = Math.max(largest, Number((await env.client.workflow.getHandle(thread.threadId, execution.runId).describe()).historyLength));
    }
    expect(executions).toBeGreaterThan(2);
    expect(largest).toBeLessThan(2_500);
    await thread.close();
  }, 900_000);
});
