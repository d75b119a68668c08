import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { AGENT_SEARCH_ATTRIBUTES } from '../../src/protocol/search-attributes';

/**
 * docs/deployment.md tells Temporal Cloud users which search attributes to add by hand (`setup`
 * cannot there): a namespace set up from it must have every attribute the runtime registers.
 */
describe('docs/deployment.md', () => {
  it('lists every registered search attribute, with its type, for Temporal Cloud', () => {
    const doc = readFileSync(path.join(__dirname, '..', '..', 'docs', 'deployment.md'), 'utf8');
    const start = doc.indexOf('add the search attributes');
    expect(start).toBeGreaterThan(0);
    const list = doc.slice(start, doc.indexOf('\n- ', start)).replace(/\s+/g, ' ');
    for (const { name, type } of AGENT_SEARCH_ATTRIBUTES) {
      // `Name` (Type), or `Name`, `Other` and `Last` (Type): the first type after the name is its own.
      const typeAfter = new RegExp(`\`${name}\`[^(]*\\((\\w+)\\)`).exec(list)?.[1];
      expect({ name, type: typeAfter }).toEqual({ name, type });
    }
  });
});
