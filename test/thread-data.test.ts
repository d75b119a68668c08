import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { configHashOf, parsedConfigHashOf } from '../src/client/config-hash';
import { prepareAgents } from '../src/client/prepared-agents';
import { ErrorCode } from '../src/protocol/errors';
import type { AgentThreadInput } from '../src/protocol/thread-types';
import { WireName } from '../src/protocol/wire-names';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const testTools = createTestTools();
let env: TestEnvironment;

const scripts = {
  many: { replies: Array.from({ length: 40 }, () => ({ text: 'Reply to {{user}}' })) },
};

beforeAll(async () => {
  env = await createTestEnvironment({ tools: testTools.tools, scripts });
});

afterAll(async () => {
  await env?.close();
});

describe('config hash of a thread', () => {
  it('hashes the config as the caller wrote it: key order does not matter, defaults are not part of it', () => {
    const written = { name: 'support', model: 'scripted:many', tools: ['echo'] };
    const reordered = { tools: ['echo'], model: 'scripted:many', name: 'support' };
    expect(configHashOf(written)).toBe(configHashOf(reordered));
    expect(configHashOf(written)).not.toBe(configHashOf({ ...written, name: 'other' }));
    // The parsed config holds the library's defaults: its hash is another one.
    const { config } = prepareAgents(written, undefined, undefined, 'thread');
    expect(parsedConfigHashOf(config)).not.toBe(configHashOf(written));
  });

  it('still answers the caller of a thread created with the parsed config hash (before this version), and refuses another config', async () => {
    const given = { name: 'assistant', model: 'scripted:many' };
    const { config } = prepareAgents(given, undefined, undefined, 'thread');
    const threadId = `thread-old-hash-${randomUUID().slice(0, 8)}`;
    const input: AgentThreadInput = { config, configHash: parsedConfigHashOf(config), settings: { policy: 'enqueue', idleTimeoutMs: null, resourceId: null } };
    await env.client.workflow.start(WireName.agentThreadWorkflow, { workflowId: threadId, taskQueue: env.taskQueue, args: [input] });
    const thread = env.agents.thread(threadId, { config: given });
    expect((await (await thread.send('hello')).result()).output).toBe('Reply to hello');
    await expect(env.agents.thread(threadId, { config: { ...given, name: 'someone-else' } }).send('hi')).rejects.toMatchObject({ code: ErrorCode.threadConfigMismatch });
    await thread.close();
  });

  it('answers a caller whose config lists the same fields in another order', async () => {
    const threadId = `thread-new-hash-${randomUUID().slice(0, 8)}`;
    const first = env.agents.thread(threadId, { config: { name: 'assistant', model: 'scripted:many', max_steps: 5 } });
    await (await first.send('one')).result();
    const second = env.agents.thread(threadId, { config: { max_steps: 5, model: 'scripted:many', name: 'assistant' } });
    expect((await (await second.send('two')).result()).output).toBe('Reply to two');
    await first.close();
  });
});
