import { describe, expect, it } from '@jest/globals';
import { isStrictCompatible } from '../../src/models/strict-json-schema';

describe('isStrictCompatible (OpenAI strict structured outputs)', () => {
  const closed = (properties: Record<string, unknown>) => ({
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  });

  it('accepts closed objects that require every property, at every depth', () => {
    expect(isStrictCompatible(closed({ a: { type: 'string' }, b: { type: 'array', items: closed({ c: { type: 'number' } }) } }))).toBe(true);
    expect(isStrictCompatible({ anyOf: [closed({ a: { type: 'string' } }), { type: 'null' }] })).toBe(true);
  });

  it('refuses open objects, optional properties and nested violations', () => {
    expect(isStrictCompatible({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] })).toBe(false);
    expect(isStrictCompatible({ ...closed({ a: { type: 'string' } }), required: [] })).toBe(false);
    expect(isStrictCompatible(closed({ list: { type: 'array', items: { type: 'object', properties: { x: {} } } } }))).toBe(false);
    expect(isStrictCompatible({ ...closed({}), $defs: { Node: { type: 'object', properties: { x: {} }, additionalProperties: false } } })).toBe(
      false,
    );
  });
});
