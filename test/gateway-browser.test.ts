import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { defineAgent } from '../src/agents/define-agent';
import { hashGatewayKey, type GatewayAccess } from '../src/gateway/gateway-access';
import { createGatewayHandler } from '../src/gateway/gateway-app';
import { AgentConfigError } from '../src/protocol/errors';
import { bundleChatPage, EXAMPLE_BASE_PATH, startChatSite, type ChatSite } from './support/chat-page-site';
import { closeBrowser, launchChromium } from './support/chromium';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * The Next.js example's chat (examples/nextjs-chat/app/chat.tsx: the AI SDK's React `useChat` over
 * its own `DefaultChatTransport`) bundled into a page and driven in Debian's chromium against the
 * gateway mounted under /api/agents, as the example's route mounts it (issue #43): it streams an
 * answer, approves a gated tool with its button, and recovers a turn whole after its connection
 * dropped and the gateway was restarted mid-turn.
 */

const key = 'browser-key-0123456789abcdef';
const access: GatewayAccess = {
  keys: [{ principal: 'dana@example.com', sha256: hashGatewayKey(key), scopes: ['send', 'read', 'approve'] }],
};
const LONG_ANSWER = Array.from({ length: 40 }, (_, index) => `word${index + 1}`).join(' ');
const testTools = createTestTools();
const writer = defineAgent({ config: { name: 'writer', model: 'scripted:write' } });
const slowWriter = defineAgent({ config: { name: 'slow-writer', model: 'scripted:slow' } });
const deployer = defineAgent({ config: { name: 'deployer', model: 'scripted:deploy', tools: ['echo'], hitl_tools: ['echo'] } });
/** Generous: a busy 2-core machine runs the workers, the dev server and chromium. */
const WAIT_MS = 60_000;
let env: TestEnvironment;
let script: string;
let site: ChatSite;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  [env, script] = await Promise.all([
    createTestEnvironment({
      tools: testTools.tools,
      agents: [writer, slowWriter, deployer],
      scripts: {
        write: { replies: [{ text: 'The answer to {{user}} is streamed to the page word by word here', streamMs: 120 }] },
        slow: { replies: [{ text: LONG_ANSWER, streamMs: 150 }] },
        deploy: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'ship it' } }] }, { text: 'Done: {{tool:echo}}' }] },
      },
    }),
    bundleChatPage(),
  ]);
  site = await startChatSite(script, { agents: env.agents, access });
  browser = await launchChromium();
});

afterAll(async () => {
  await closeBrowser(browser, contexts);
  await site?.crash();
  await env?.close();
});

/** The chat page for a new thread of `agent`, loaded and ready for a message. */
async function openChat(agent: string): Promise<{ page: Page; chatId: string }> {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  const chatId = `${agent}-${randomUUID().slice(0, 8)}`;
  await page.goto(`${site.url}/?chat=${chatId}&agent=${agent}&token=${key}`);
  // resume: true asks for a running turn first (204: none); the prompt is enabled once the chat is ready.
  await page.locator('.status', { hasText: 'Status: ready' }).waitFor({ timeout: WAIT_MS });
  return { page, chatId };
}

async function send(page: Page, text: string): Promise<void> {
  await page.fill('input', text);
  await page.click('button[type=submit]');
}

/** The page's assistant text, as a browser expression (the test's own TypeScript has no DOM types). */
const ASSISTANT_TEXT = "[...document.querySelectorAll('[data-role=assistant] p')].map((node) => node.textContent).join('')";

/** Every text the page's assistant messages showed, in order, recorded by the page as it changes. */
async function recordAssistantText(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(`(() => {
    const seen = (window.seenTexts = []);
    new MutationObserver(() => {
      const text = ${ASSISTANT_TEXT};
      if (text && seen.at(-1) !== text) seen.push(text);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  })()`);
  return () => page.evaluate<string[]>('window.seenTexts');
}

function assistantText(page: Page): Promise<string> {
  return page.evaluate<string>(ASSISTANT_TEXT);
}

describe('the Next.js example chat in chromium', () => {
  it('streams the answer into the page as it is written', async () => {
    const { page } = await openChat('writer');
    const seenTexts = await recordAssistantText(page);
    await send(page, 'life');
    const expected = 'The answer to life is streamed to the page word by word here';
    await eventually(async () => (await assistantText(page)) === expected, WAIT_MS);
    await page.locator('.status', { hasText: 'Status: ready' }).waitFor({ timeout: WAIT_MS });
    const seen = await seenTexts();
    // Written over ~1.3 s and read from heartbeats: the page showed the text grow, each a prefix of the answer.
    expect(seen.length).toBeGreaterThan(1);
    for (const text of seen) expect(expected.startsWith(text)).toBe(true);
    expect(seen.at(-1)).toBe(expected);
    expect(await page.locator('[data-role=user]').textContent()).toBe('life');
  });

  it('shows a gated call with Approve; the click decides it as the key and the turn finishes', async () => {
    const { page, chatId } = await openChat('deployer');
    await send(page, 'Deploy the API');
    const tool = page.locator('.tool');
    await tool.locator('button', { hasText: 'Approve' }).waitFor({ timeout: WAIT_MS });
    expect(await tool.getAttribute('data-state')).toBe('approval-requested');
    expect(await tool.locator('code').textContent()).toBe('echo({"text":"ship it"})');
    await tool.locator('button', { hasText: 'Approve' }).click();
    await eventually(async () => (await assistantText(page)).startsWith('Done: '), WAIT_MS);
    await page.locator('.status', { hasText: 'Status: ready' }).waitFor({ timeout: WAIT_MS });
    expect(await tool.getAttribute('data-state')).toBe('output-available');
    expect(await tool.locator('pre').textContent()).toContain('ship it');
    expect(await page.locator('[data-role=assistant]').count()).toBe(1);
    const history = JSON.stringify(await env.agents.thread(chatId).history());
    expect(history).toContain('dana@example.com');
  });

  it('recovers the whole answer, once, after the connection drops and the gateway restarts mid-turn', async () => {
    const { page, chatId } = await openChat('slow-writer');
    await page.evaluate('window.loadedOnce = true');
    const seenTexts = await recordAssistantText(page);
    await send(page, 'Count');
    await eventually(async () => (await assistantText(page)).includes('word5'), WAIT_MS);
    const before = await assistantText(page);
    await site.crash();
    // The page saw its stream break while no gateway answers.
    await page.locator('.status', { hasText: 'Status: error' }).waitFor({ timeout: WAIT_MS });
    site = await startChatSite(script, { agents: env.agents, access }, site.port);
    await eventually(async () => (await assistantText(page)) === LONG_ANSWER, 90_000);
    await page.locator('.status', { hasText: 'Status: ready' }).waitFor({ timeout: WAIT_MS });
    expect(LONG_ANSWER.startsWith(before)).toBe(true);
    expect(LONG_ANSWER.length).toBeGreaterThan(before.length);
    // The same page (no reload), one assistant message, the turn's id: replaced on resume, not doubled.
    expect(await page.evaluate('window.loadedOnce')).toBe(true);
    expect(await page.locator('[data-role=assistant]').count()).toBe(1);
    expect(await page.locator('[data-role=assistant] p').count()).toBe(1);
    // Never a doubled word on the way either: every text the page showed is a beginning of the answer.
    for (const text of await seenTexts()) expect(LONG_ANSWER.startsWith(text)).toBe(true);
    const turn = await env.agents.thread(chatId).history();
    expect(JSON.stringify(turn)).toContain(LONG_ANSWER);
  }, 180_000);
});

describe('basePath', () => {
  it('serves the routes under the mount path only', async () => {
    const mounted = await fetch(`${site.url}${EXAMPLE_BASE_PATH}/openapi.json`);
    expect(mounted.status).toBe(200);
    expect(((await mounted.json()) as { openapi: string }).openapi).toBe('3.1.0');
    const gateway = createGatewayHandler({ agents: env.agents, access, basePath: `${EXAMPLE_BASE_PATH}/` });
    try {
      const outside = await gateway.fetch(new Request('http://gateway.test/v1/agents', { headers: { authorization: `Bearer ${key}` } }));
      expect(outside.status).toBe(404);
      expect(((await outside.json()) as { error: { code: string } }).error.code).toBe('RouteNotFound');
    } finally {
      await gateway.close();
    }
  });

  it('refuses a basePath that is not a path, naming the field', () => {
    expect(() => createGatewayHandler({ agents: env.agents, access, basePath: 'api/agents' })).toThrow(AgentConfigError);
    expect(() => createGatewayHandler({ agents: env.agents, access, basePath: '/api agents' })).toThrow(/basePath: "\/api agents"/);
  });
});
