import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { parseAgentConfig } from '../../src/config/agent-config';
import { worstCaseRefusal, WORST_CASE_OUTPUT_TOKENS } from '../../src/budget/worst-case-cost';
import { PriceTable } from '../../src/models/model-prices';
import { loadPriceFile, pricesFromEnvironment } from '../../src/models/price-file';
import { costOf, findPrice } from '../../src/protocol/model-price';
import { ErrorCode } from '../../src/protocol/errors';
import { addRunUsage, addUsage, emptyUsage } from '../../src/workflows/rules/usage-totals';
import { costAllowance } from '../../src/workflows/loop/spend-limits';

// Pure rules of cost accounting: prices, sums, limits. Runs on a real server are in cost-accounting.test.ts.

const folder = mkdtempSync(path.join(os.tmpdir(), 'cost-rules-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('prices', () => {
  it('prices input, cached input and output per million tokens', () => {
    expect(costOf({ inputTokens: 1_000_000, outputTokens: 0 }, { input: 2.5, output: 10 })).toBe(2.5);
    // 400k cached at 1.25 + 600k at 2.5 + 100k output at 10.
    expect(
      costOf({ inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 100_000 }, { input: 2.5, output: 10, cached_input: 1.25 }),
    ).toBe(0.5 + 1.5 + 1);
    // Without a cached price, cached tokens cost the input price.
    expect(costOf({ inputTokens: 100, cachedInputTokens: 100, outputTokens: 0 }, { input: 3, output: 15 })).toBe(0.0003);
  });

  it('finds an exact key first, then the longest prefix', () => {
    const prices = {
      'openai:gpt-4o*': { input: 1, output: 1 },
      'openai:gpt-4o-mini*': { input: 2, output: 2 },
      'openai:gpt-4o-mini-special': { input: 3, output: 3 },
    };
    expect(findPrice(prices, 'openai:gpt-4o-2024-08-06')?.input).toBe(1);
    expect(findPrice(prices, 'openai:gpt-4o-mini-2024-07-18')?.input).toBe(2);
    expect(findPrice(prices, 'openai:gpt-4o-mini-special')?.input).toBe(3);
    expect(findPrice(prices, 'anthropic:gpt-4o')).toBeNull();
  });

  it('takes the agent price over the worker overrides over the defaults, and knows no price for self-hosted models', () => {
    const table = new PriceTable({ 'openai:gpt-4o*': { input: 1, output: 1 } });
    expect(table.priceOf('openai:gpt-4o')).toEqual({ input: 1, output: 1 });
    expect(table.priceOf('openai:gpt-4o', { input: 9, output: 9 })).toEqual({ input: 9, output: 9 });
    expect(table.priceOf('openai:gpt-4o-mini')).toEqual({ input: 0.15, output: 0.6, cached_input: 0.075 });
    expect(table.priceOf('anthropic:claude-sonnet-4-20250514')?.output).toBe(15);
    expect(table.priceOf('anthropic:claude-opus-4-5')?.input).toBe(5);
    expect(table.priceOf('anthropic:claude-opus-4-1-20250805')?.input).toBe(15);
    expect(table.priceOf('scripted:demo')).toEqual({ input: 0, output: 0 });
    expect(table.priceOf('openai-compatible:llama3.1')).toBeNull();
    expect(table.costOf('openai-compatible:llama3.1', { inputTokens: 10, outputTokens: 10 })).toBeNull();
  });

  it('reads a price file and refuses a bad one naming the file and the field', () => {
    const good = path.join(folder, 'good.json');
    writeFileSync(good, JSON.stringify({ 'openai-compatible:llama*': { input: 0.2, output: 0.4 } }));
    expect(pricesFromEnvironment({ AGENT_MODEL_PRICES: good })).toEqual({ 'openai-compatible:llama*': { input: 0.2, output: 0.4 } });
    expect(pricesFromEnvironment({})).toEqual({});
    const bad = path.join(folder, 'bad.json');
    writeFileSync(bad, JSON.stringify({ 'openai:gpt-4o': { input: -1, output: 1 }, nomodel: { input: 1, output: 1 } }));
    expect(() => loadPriceFile(bad)).toThrow(expect.objectContaining({ code: ErrorCode.agentConfigInvalid }));
    expect(() => loadPriceFile(bad)).toThrow(/bad\.json: openai:gpt-4o\.input: must be a price/);
    expect(() => loadPriceFile(bad)).toThrow(/nomodel/);
    expect(() => loadPriceFile(path.join(folder, 'missing.json'))).toThrow(/missing\.json: cannot be read as JSON/);
  });

  it('validates pricing and cost limits in the agent config, and leaves configs without them as they were', () => {
    expect(parseAgentConfig({ name: 'a' })).not.toHaveProperty('pricing');
    expect(parseAgentConfig({ name: 'a', cost_limit: 0.5, pricing: { 'scripted:*': { input: 1, output: 2 } } }).cost_limit).toBe(0.5);
    expect(() => parseAgentConfig({ name: 'a', cost_limit: 0 })).toThrow(/cost_limit: must be an amount in USD/);
    expect(() => parseAgentConfig({ name: 'a', pricing: { 'scripted:x': { input: 1 } } })).toThrow(/pricing\.scripted:x\.output/);
  });
});

describe('usage sums', () => {
  it('adds priced calls to the cost and counts unpriced ones apart, per model too', () => {
    const usage = emptyUsage();
    addUsage(usage, 'openai:gpt-4o', { inputTokens: 100, outputTokens: 10, cachedInputTokens: 50 }, 0.1);
    addUsage(usage, 'openai:gpt-4o', { inputTokens: 100, outputTokens: 10 }, 0.2);
    addUsage(usage, 'openai-compatible:x', { inputTokens: 7, outputTokens: 1 }, null);
    expect(usage.costUsd).toBe(0.3);
    expect(usage.unpricedCalls).toBe(1);
    expect(usage.cachedInputTokens).toBe(50);
    expect(usage.byModel['openai:gpt-4o']).toEqual({ inputTokens: 200, outputTokens: 20, cachedInputTokens: 50, costUsd: 0.3 });
    expect(usage.byModel['openai-compatible:x']).toEqual({ inputTokens: 7, outputTokens: 1, unpricedCalls: 1 });
  });

  it("adds a sub-agent's whole usage to its parent's", () => {
    const parent = emptyUsage();
    addUsage(parent, 'scripted:a', { inputTokens: 1, outputTokens: 1 }, 0.5);
    const child = emptyUsage();
    addUsage(child, 'scripted:a', { inputTokens: 2, outputTokens: 2 }, 0.25);
    addUsage(child, 'scripted:b', { inputTokens: 3, outputTokens: 3 }, null);
    addRunUsage(parent, child);
    expect(parent).toEqual({
      inputTokens: 6,
      outputTokens: 6,
      costUsd: 0.75,
      unpricedCalls: 1,
      byModel: {
        'scripted:a': { inputTokens: 3, outputTokens: 3, costUsd: 0.75 },
        'scripted:b': { inputTokens: 3, outputTokens: 3, unpricedCalls: 1 },
      },
    });
  });
});

describe('cost limits', () => {
  const spent = (usd: number) => ({ ...emptyUsage(), costUsd: usd });

  it('counts a run whole, a thread turn from its start, and a thread against its own limit: the strictest wins', () => {
    expect(costAllowance({}, spent(3), undefined)).toBeNull();
    expect(costAllowance({ cost_limit: 1 }, spent(0.25), undefined)).toEqual({
      remainingUsd: 0.75,
      limitUsd: 1,
      spentUsd: 0.25,
      limitName: 'cost_limit of the run',
    });
    expect(costAllowance({ cost_limit: 1 }, spent(2.25), 2)).toEqual({
      remainingUsd: 0.75,
      limitUsd: 1,
      spentUsd: 0.25,
      limitName: 'cost_limit of the turn',
    });
    expect(costAllowance({ cost_limit: 1, thread_cost_limit: 2.5 }, spent(2.25), 2)?.limitName).toBe('thread_cost_limit');
    // A run ignores thread_cost_limit (sub-agents of a thread inherit the field).
    expect(costAllowance({ thread_cost_limit: 1 }, spent(5), undefined)).toBeNull();
  });

  it('refuses a call whose worst case (prompt at the input price, max output at the output price) is more than what is left', () => {
    const call = {
      model: 'openai:gpt-4o',
      maxTokens: 1_000,
      system: 'You help.',
      tools: [],
      messages: [{ role: 'user' as const, content: 'Hello there' }],
    };
    const prices = new PriceTable();
    // 1,000 output tokens at $10 per million = $0.01, plus a few prompt tokens at $2.5 per million.
    const refusal = worstCaseRefusal(prices, { ...call, remainingUsd: 0.01 });
    expect(refusal).toMatchObject({ remainingUsd: 0.01, maxOutputTokens: 1_000 });
    expect(refusal!.promptTokens).toBeGreaterThan(3);
    expect(refusal!.worstCaseUsd).toBeCloseTo(0.01 + (refusal!.promptTokens * 2.5) / 1e6, 9);
    expect(worstCaseRefusal(prices, { ...call, remainingUsd: 0.02 })).toBeNull();
    expect(worstCaseRefusal(prices, { ...call, maxTokens: null, remainingUsd: 0.02 })?.maxOutputTokens).toBe(WORST_CASE_OUTPUT_TOKENS);
    expect(worstCaseRefusal(prices, { ...call, model: 'openai-compatible:x', remainingUsd: 100 })).toMatchObject({ unpriced: true });
  });
});
