import { describe, expect, it } from '@jest/globals';
import { firstDivergence } from '../../src/client/evaluation/compare';
import { canonicalJson, matchRecordedCalls, toolCallKey } from '../../src/protocol/recorded-calls';

describe('matching tool calls against recorded ones', () => {
  it('keys calls by tool and canonical arguments: key order and undefined members do not matter', () => {
    expect(canonicalJson({ b: [1, { d: 2, c: undefined, a: null }], a: 'x' })).toBe('{"a":"x","b":[1,{"a":null,"d":2}]}');
    expect(toolCallKey('add', { b: 2, a: 1 })).toBe(toolCallKey('add', { a: 1, b: 2 }));
    expect(toolCallKey('add', { a: 1, b: 2 })).not.toBe(toolCallKey('add', { a: 1, b: 3 }));
    expect(toolCallKey('noop', undefined)).toBe('noop({})');
  });

  it('matches the nth call with a key to the nth recorded one, and no further', () => {
    expect(matchRecordedCalls(['a', 'b', 'a'], ['a', 'a', 'a', 'c', 'b'])).toEqual([true, true, false, false, true]);
  });

  it('finds the first step whose calls differ, in any order within a step', () => {
    const calls = (...pairs: Array<[number, string]>) => pairs.map(([step, key]) => ({ step, key }));
    expect(firstDivergence(calls([1, 'a'], [2, 'b'], [2, 'c']), calls([1, 'a'], [2, 'c'], [2, 'b']))).toBeNull();
    expect(firstDivergence(calls([1, 'a'], [2, 'b']), calls([1, 'a'], [2, 'x']))).toBe(2);
    expect(firstDivergence(calls([1, 'a']), calls([1, 'a'], [3, 'b']))).toBe(3);
    expect(firstDivergence(calls([1, 'a'], [2, 'b']), calls([1, 'a']))).toBe(2);
  });
});
