import { describe, expect, it } from '@jest/globals';
import { parseAgentConfig } from '../../src/config/agent-config';
import { AgentConfigError } from '../../src/protocol/errors';
import { decidersOf } from '../../src/console/console-access';
import { argumentList, formatBytes, valueSize } from '../../src/console/pages/argument-view';

/** What an approver reads of a call (pure): sizes, a long value's parts, invisible characters, who decides, and `dangerous_tools` checked like `hitl_tools`. */

describe('approval views', () => {
  it('says how big each value is', () => {
    expect(valueSize(Array.from({ length: 45 }, (_, index) => `r${index}@example.com`))).toMatch(/^45 items · \d+ B$/);
    expect(valueSize({ a: 1, b: 2 })).toBe('2 fields · 22 B');
    expect(valueSize('short')).toBe('');
    expect(valueSize('a\nb')).toBe('2 lines · 3 B');
    expect([formatBytes(512), formatBytes(12_600), formatBytes(3 * 1024 * 1024)]).toEqual(['512 B', '12.3 KB', '3.0 MB']);
  });

  it('shows a long value whole in three parts, its end outside the collapsed middle', async () => {
    const lines = Array.from({ length: 500 }, (_, index) => `line ${index + 1}`);
    const page = (await argumentList({ body: lines.join('\n') }, false)).toString();
    const tail = /<pre class="tail"[^>]*>([^<]*)<\/pre>/.exec(page)![1]!;
    expect(tail.split('\n')).toEqual(lines.slice(-8));
    expect(page).toContain('Show the hidden middle (480 lines,');
    const parts = [...page.matchAll(/<pre[^>]*>([^<]*)<\/pre>/g)].map((match) => match[1]!);
    expect(parts.join('\n')).toBe(lines.join('\n'));
    // On the approval's own page every value is whole, in one block.
    expect((await argumentList({ body: lines.join('\n') }, true)).toString()).not.toContain('<details');
  });

  it('shows and counts characters that change how text reads without being seen', async () => {
    const page = (await argumentList({ to: 'bob\u202Eexample.com\u200B' }, false)).toString();
    expect(page).toContain('Contains 2 invisible or direction-changing characters');
    expect(page).toContain('bob⟦U+202E⟧example.com⟦U+200B⟧');
  });

  it('names who may decide a tool: the identities of every rule for it, or null for anyone', () => {
    const rules = [
      { tools: ['deploy*'], identities: ['ops-lead@example.com'] },
      { tools: ['deploy', 'refund_*'], identities: ['*@finance.example.com', 'ops-lead@example.com'] },
    ];
    expect(decidersOf(rules, 'deploy')).toEqual(['ops-lead@example.com', '*@finance.example.com']);
    expect(decidersOf(rules, 'read_logs')).toBeNull();
    expect(decidersOf(undefined, 'deploy')).toBeNull();
  });

  it('checks dangerous_tools like hitl_tools, and leaves it out when absent', () => {
    expect(parseAgentConfig({ name: 'ops', tools: ['deploy'], hitl_tools: ['deploy'], dangerous_tools: ['deploy'] }).dangerous_tools).toEqual([
      'deploy',
    ]);
    expect('dangerous_tools' in parseAgentConfig({ name: 'ops' })).toBe(false);
    let problems: string[] = [];
    try {
      parseAgentConfig({ name: 'ops', tools: ['deploy'], dangerous_tools: ['deploy', 'delpoy'] });
    } catch (error) {
      problems = error instanceof AgentConfigError ? error.problems : [];
    }
    expect(problems).toEqual([expect.stringContaining("dangerous_tools.1: names tool 'delpoy', which agent 'ops' does not have")]);
  });
});
