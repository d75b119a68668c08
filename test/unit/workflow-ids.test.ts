import { describe, expect, it } from '@jest/globals';
import { boundedWorkflowId, MAX_WORKFLOW_ID_LENGTH } from '../../src/workflows/rules/workflow-ids';

describe('workflow ids of nested children', () => {
  it('keeps an id within the limit as it is', () => {
    const id = `support-1a2b.step-3.sub-1`;
    expect(boundedWorkflowId(id)).toBe(id);
    expect(boundedWorkflowId('x'.repeat(MAX_WORKFLOW_ID_LENGTH))).toBe('x'.repeat(MAX_WORKFLOW_ID_LENGTH));
  });

  it('shortens a deeply nested id to the limit, keeping its start, unique and the same every time', () => {
    const nested = Array.from({ length: 30 }, (_, depth) => `step-${depth + 1}.sub-1`).join('.');
    const sibling = nested.replace(/sub-1$/, 'sub-2');
    const bounded = boundedWorkflowId(`support-1a2b.${nested}`);
    expect(bounded).toHaveLength(MAX_WORKFLOW_ID_LENGTH);
    expect(bounded.startsWith('support-1a2b.step-1.sub-1.step-2')).toBe(true);
    expect(bounded).toMatch(/~[0-9a-f]{16}$/);
    expect(boundedWorkflowId(`support-1a2b.${nested}`)).toBe(bounded);
    expect(boundedWorkflowId(`support-1a2b.${sibling}`)).not.toBe(bounded);
  });
});
