// Concurrency caps' and tenant turns' pure decisions (no server): slots granted in turn and freed, weighted turns in the limiter, the cap schemas.
import { describe, expect, it } from '@jest/globals';
import { parseAgentConfig } from '../../src/config/agent-config';
import { parseRunConcurrency } from '../../src/config/concurrency-schema';
import type { SlotRequest } from '../../src/protocol/concurrency-slots';
import type { LimitRequest } from '../../src/protocol/provider-limits';
import { enqueue, grantDue, newLimiterState, nextWakeMs } from '../../src/workflows/limits/limiter-schedule';
import { childConfig } from '../../src/workflows/rules/subagent-calls';
import {
  dropGoneHolders,
  enqueueSlot,
  grantFreeSlots,
  newSlotsState,
  releaseSlot,
  slotsIdle,
  slotsStatus,
} from '../../src/workflows/limits/slot-schedule';
import { nextInTurn, recordTurn, type TenantTurns } from '../../src/workflows/limits/tenant-turns';

const slotRequest = (holderId: string, fairnessKey = '', limit = 2, priorityKey = 3, fairnessWeight?: number): SlotRequest => ({
  capKey: 'agent:a',
  holderId,
  workflowId: holderId,
  firstExecutionRunId: `first-${holderId}`,
  limit,
  priorityKey,
  fairnessKey,
  ...(fairnessWeight !== undefined ? { fairnessWeight } : {}),
});

const limitRequest = (requestId: string, fairnessKey: string, fairnessWeight?: number): LimitRequest => ({
  requestId,
  workflowId: `run-${requestId}`,
  estimatedTokens: 10,
  priorityKey: 3,
  fairnessKey,
  ...(fairnessWeight !== undefined ? { fairnessWeight } : {}),
  limit: { requestsPerMinute: 600 },
});

describe('concurrency slots', () => {
  it('grants at most the limit, first come first served within a tenant, and the next on a release', () => {
    const state = newSlotsState(0);
    for (const id of ['a', 'b', 'c', 'd']) enqueueSlot(state, slotRequest(id), 0);
    expect(grantFreeSlots(state, 0).map((request) => request.holderId)).toEqual(['a', 'b']);
    expect(grantFreeSlots(state, 0)).toEqual([]);
    releaseSlot(state, { holderId: 'b' });
    expect(grantFreeSlots(state, 1).map((request) => request.holderId)).toEqual(['c']);
    // A holder found gone (terminated) frees its slot too.
    dropGoneHolders(state, ['a']);
    expect(grantFreeSlots(state, 2).map((request) => request.holderId)).toEqual(['d']);
    expect(slotsStatus(state)).toMatchObject({ limit: 2, holders: ['c', 'd'], queued: 0, totals: { granted: 4, released: 1, holdersGone: 1 } });
  });

  it('answers a repeated request of a holder with its grant again, and drops a cancelled waiter from the queue', () => {
    const state = newSlotsState(0);
    enqueueSlot(state, slotRequest('a', '', 1), 0);
    enqueueSlot(state, slotRequest('b', '', 1), 0);
    grantFreeSlots(state, 0);
    expect(enqueueSlot(state, slotRequest('a', '', 1), 1)).toBe('held');
    expect(enqueueSlot(state, slotRequest('b', '', 1), 1)).toBe('queued-already');
    releaseSlot(state, { holderId: 'b' });
    expect(slotsStatus(state).queued).toBe(0);
    releaseSlot(state, { holderId: 'a' });
    expect(slotsIdle(state)).toBe(true);
  });

  it('serves tenants in turn and a lower priority key first', () => {
    const state = newSlotsState(0);
    for (let index = 0; index < 5; index++) enqueueSlot(state, slotRequest(`big${index}`, 'big', 1), 0);
    enqueueSlot(state, slotRequest('small0', 'small', 1), 0);
    enqueueSlot(state, slotRequest('urgent', 'other', 1, 1), 0);
    const order: string[] = [];
    for (let index = 0; index < 4; index++) {
      const [granted] = grantFreeSlots(state, index);
      order.push(granted!.holderId);
      releaseSlot(state, { holderId: granted!.holderId });
    }
    expect(order).toEqual(['urgent', 'big0', 'small0', 'big1']);
  });

  it('applies the newest limit a request carried', () => {
    const state = newSlotsState(0);
    for (const id of ['a', 'b', 'c']) enqueueSlot(state, slotRequest(id, '', 1), 0);
    expect(grantFreeSlots(state, 0)).toHaveLength(1);
    enqueueSlot(state, slotRequest('d', '', 3), 0);
    expect(grantFreeSlots(state, 0).map((request) => request.holderId)).toEqual(['b', 'c']);
  });
});

describe('weighted tenant turns', () => {
  it('gives a weight-2 tenant twice the grants of a weight-1 tenant while both have requests queued', () => {
    const state = newLimiterState({});
    for (let index = 0; index < 60; index++) {
      enqueue(state, limitRequest(`heavy${index}`, 'heavy', 2), 0);
      enqueue(state, limitRequest(`light${index}`, 'light'), 0);
    }
    const order: string[] = [];
    let now = 0;
    while (order.length < 60) {
      for (const { request } of grantDue(state, now)) order.push(request.fairnessKey);
      now = nextWakeMs(state, now) ?? now;
    }
    const firstSixty = order.slice(0, 60);
    expect(firstSixty.filter((tenant) => tenant === 'heavy')).toHaveLength(40);
    expect(firstSixty.filter((tenant) => tenant === 'light')).toHaveLength(20);
  });

  it('keeps plain turns (no credit kept) when every tenant weighs the same, and carries fractions of a turn', () => {
    const turns: TenantTurns = { lastServed: {}, serveCount: 0 };
    const queue = [
      { priorityKey: 3, fairnessKey: 'a' },
      { priorityKey: 3, fairnessKey: 'b' },
    ];
    const served: string[] = [];
    for (let index = 0; index < 4; index++) {
      const next = nextInTurn(queue, turns)!;
      served.push(next.fairnessKey);
      recordTurn(turns, next, queue);
    }
    expect(served).toEqual(['a', 'b', 'a', 'b']);
    expect(turns.turnCredit).toBeUndefined();
    // Weights 1.5 and 1: three grants to two over each pair of turns.
    const weighted: TenantTurns = { lastServed: {}, serveCount: 0 };
    const weightedQueue = [
      { priorityKey: 3, fairnessKey: 'a', fairnessWeight: 1.5 },
      { priorityKey: 3, fairnessKey: 'b', fairnessWeight: 1 },
    ];
    const counts: Record<string, number> = { a: 0, b: 0 };
    for (let index = 0; index < 50; index++) {
      const next = nextInTurn(weightedQueue, weighted)!;
      counts[next.fairnessKey]!++;
      recordTurn(weighted, next, weightedQueue);
    }
    expect(counts).toEqual({ a: 30, b: 20 });
  });
});

describe('concurrency cap settings', () => {
  it('accepts max_concurrent_runs and a start concurrency, naming the field of a bad one', () => {
    expect(parseAgentConfig({ name: 'a', max_concurrent_runs: 3 }).max_concurrent_runs).toBe(3);
    expect('max_concurrent_runs' in parseAgentConfig({ name: 'a' })).toBe(false);
    expect(() => parseAgentConfig({ name: 'a', max_concurrent_runs: 0 })).toThrow(/max_concurrent_runs: must be more than 0/);
    expect(parseRunConcurrency({ key: 'tenant-a', limit: 2 })).toEqual({ key: 'tenant-a', limit: 2 });
    expect(() => parseRunConcurrency({ key: '', limit: 1.5 })).toThrow(
      /concurrency\.key: must not be empty[\s\S]*concurrency\.limit: must be a whole number/,
    );
    expect(() => parseRunConcurrency({ key: 'a', limit: 1, tenant: 'x' })).toThrow(/concurrency\.tenant: unknown field/);
  });

  it("runs a sub-agent inside its parent's slot: its config has no cap of its own to wait for", () => {
    const parent = parseAgentConfig({ name: 'a', max_concurrent_runs: 1 });
    expect('max_concurrent_runs' in childConfig(parent, { task: 'look it up' }, [])).toBe(false);
  });
});
