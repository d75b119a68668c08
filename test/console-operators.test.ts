import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startConsole, type RunningConsole } from '../src/console/console-server';
import { ErrorCode } from '../src/protocol/errors';
import { closeBrowser, launchChromium } from './support/chromium';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * The console as an operator uses it, in Debian's chromium against the real dev server and a real
 * worker: finding failed runs by status, a failed run's error with its code and what to do, calls
 * and sub-agents that wait for a decision shown as waiting (not running), and a run page's
 * decided calls. Screenshots go to .test-output/console/ (docs/console.md uses them).
 */

const SCREENSHOTS = path.resolve(__dirname, '..', '.test-output', 'console');
/** One worker, one console (signed in as the local operator: loopback, no tokens) and one browser for the file. */
let env: TestEnvironment, consoleServer: RunningConsole, browser: Browser;
const contexts: BrowserContext[] = [];
const testTools = createTestTools();

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  env = await createTestEnvironment({
    tools: testTools.tools,
    scripts: {
      keyRevoked: { replies: [{ error: { code: ErrorCode.modelAuthFailed, message: 'The provider refused the API key (401 invalid_api_key)' } }] },
      fine: { replies: [{ text: 'All fine.' }] },
      refund: { replies: [{ text: 'Refunding.', toolCalls: [{ name: 'echo', args: { text: 'refund order 7' } }] }, { text: 'Refunded.' }] },
      delegate: {
        replies: [{ toolCalls: [{ name: 'spawn_self', args: { task: 'child: refund order 9' } }] }, { text: 'Parent done.' }],
        variants: [
          {
            taskIncludes: 'child: refund order 9',
            replies: [{ toolCalls: [{ name: 'echo', args: { text: 'refund order 9' } }] }, { text: 'Child done.' }],
          },
        ],
      },
      release: {
        replies: [
          {
            text: 'I will deploy the API and add the ticket numbers.',
            toolCalls: [
              { name: 'echo', args: { text: 'deploy api to production', ui_request_id: 'ticket-4711' } },
              { name: 'add', args: { a: 4711, b: 1 } },
            ],
          },
          { text: 'Deployed: {{tool:echo}}. The sum was rejected, so I did not add the tickets.' },
        ],
      },
    },
  });
  consoleServer = await startConsole({ agents: env.agents, port: 0, pollMs: 500, localIdentity: 'ops@example.com' });
  browser = await launchChromium();
});

afterAll(async () => {
  await closeBrowser(browser, contexts);
  await consoleServer?.close();
  await env?.close();
});

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  contexts.push(context);
  return context.newPage();
}

/** Opens `url` until `locator` matches (visibility and the worker's queries catch up on their own time). */
async function openUntil(page: Page, url: string, selector: string, timeoutMs = 60_000): Promise<void> {
  await eventually(async () => {
    await page.goto(`${consoleServer.url}${url}`);
    return (await page.locator(selector).count()) > 0;
  }, timeoutMs);
}

describe('the console for operators', () => {
  it('finds a failed run by status, apart from completed ones, and shows its error once with its code and what to do', async () => {
    const prefix = `ops-filter-${randomUUID().slice(0, 8)}`;
    const failed = await env.agents.startRun({
      config: { name: 'ops', model: 'scripted:keyRevoked' },
      task: 'Say hi',
      workflowId: `${prefix}-failed`,
    });
    const completed = await env.agents.startRun({
      config: { name: 'ops', model: 'scripted:fine' },
      task: 'Say hi',
      workflowId: `${prefix}-completed`,
    });
    await expect(failed.result()).rejects.toThrow();
    await completed.result();
    const page = await newPage();
    const listed = (status: string) => `/runs?q=${prefix}&status=${status}`;
    await openUntil(page, listed('failed'), `tr[data-run="${prefix}-failed"]`);
    expect(await page.locator('tbody tr').count()).toBe(1);
    await expect(page.locator('tbody tr .status').textContent()).resolves.toBe('failed');
    await expect(page.locator('select[name=status] option[selected]').getAttribute('value')).resolves.toBe('failed');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'runs-failed.png'), fullPage: true });
    await openUntil(page, listed('completed'), `tr[data-run="${prefix}-completed"]`);
    expect(await page.locator('tbody tr').count()).toBe(1);
    // Both ran for well under a minute: a minimum duration leaves them out, a maximum keeps them.
    await page.goto(`${consoleServer.url}/runs?q=${prefix}&min_duration=1h`);
    await expect(page.locator('tbody tr').count()).resolves.toBe(0);
    await page.goto(`${consoleServer.url}/runs?q=${prefix}&max_duration=1h`);
    await expect(page.locator('tbody tr').count()).resolves.toBe(2);
    await page.goto(`${consoleServer.url}/runs?q=${prefix}&status=exploded`);
    await expect(page.locator('#filter-problems').textContent()).resolves.toContain("status: 'exploded' is not one of");

    await page.click(`a[href="/runs/${prefix}-failed"]`);
    const failure = page.locator('#run-failure');
    await expect(failure.locator('code').textContent()).resolves.toBe('ModelAuthFailed');
    await expect(failure.textContent()).resolves.toContain("Check the key in the workers' environment");
    const conversation = (await page.locator('#conversation').textContent()) ?? '';
    expect(conversation.split('401 invalid_api_key')).toHaveLength(2);
    await expect(page.locator('#finished').textContent()).resolves.toBe('Finished: failed');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'run-failed.png'), fullPage: true });
  });

  it("shows a thread's call that waits for a decision as waiting, not running", async () => {
    const threadId = `ops-thread-${randomUUID().slice(0, 8)}`;
    const thread = env.agents.thread(threadId, { config: { name: 'support', model: 'scripted:refund', tools: ['echo'], hitl_tools: ['echo'] } });
    const turn = await thread.send('Please refund order 7');
    const page = await newPage();
    await openUntil(page, `/runs/${threadId}`, '.card.tool[data-tool="echo"] [data-waiting="approval"]');
    const card = (await page.locator('.card.tool[data-tool="echo"]').textContent()) ?? '';
    expect(card).toContain('waiting for approval');
    expect(card).not.toContain('Running…');
    await expect(page.locator('article.approval').count()).resolves.toBe(1);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'thread-waiting.png'), fullPage: true });
    await page.locator('article.approval button.approve').click();
    await page.locator('#notice', { hasText: 'approved by ops@example.com' }).waitFor({ timeout: 30_000 });
    await turn.result();
    await page
      .locator('.card.tool[data-tool="echo"]', { hasText: 'refund order 7' })
      .locator('summary', { hasText: 'Result' })
      .waitFor({ timeout: 30_000 });
    await thread.close();
  });

  it('shows a parent whose sub-agent waits for a decision as waiting, and the sub-agent names its parent', async () => {
    const parentId = `ops-parent-${randomUUID().slice(0, 8)}`;
    const run = await env.agents.startRun({
      config: { name: 'delegator', model: 'scripted:delegate', tools: ['echo', 'spawn_self'], hitl_tools: ['echo'] },
      task: 'Refund order 9 through a sub-agent',
      workflowId: parentId,
    });
    const page = await newPage();
    await openUntil(page, `/runs/${parentId}`, '[data-child] .status.awaiting_approval');
    await expect(page.locator('#run-status').textContent()).resolves.toBe('waiting for approval');
    await expect(page.locator('[data-tool="spawn_self"] [data-waiting="sub-agent"]').count()).resolves.toBe(1);
    expect((await page.locator('#conversation').textContent()) ?? '').not.toContain('Running…');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'parent-waiting.png'), fullPage: true });

    const childId = (await page.locator('[data-child]').getAttribute('data-child'))!;
    await page.click(`[data-child] a[href="/runs/${childId}"] >> nth=0`);
    await expect(page.locator('#parent-run').getAttribute('href')).resolves.toBe(`/runs/${parentId}`);
    await expect(page.locator('#run-status').textContent()).resolves.toBe('awaiting approval');
    // The approval card names the parent too (the inbox shows the same card).
    await expect(page.locator('article.approval a.parent-run').getAttribute('href')).resolves.toBe(`/runs/${parentId}`);
    await page.locator('article.approval button.approve').click();
    await page.locator('#notice', { hasText: 'approved by ops@example.com' }).waitFor({ timeout: 30_000 });
    await expect(run.result()).resolves.toMatchObject({ output: 'Parent done.' });
  });

  it("shows a run's decided calls: model-only arguments apart, a rejected call that did not run, the task's model as written", async () => {
    const run = await env.agents.startRun({
      config: {
        name: 'deployer',
        model: 'scripted:release',
        tools: ['echo', 'add'],
        hitl_tools: ['echo', 'add'],
        injected_tool_args: { ui_request_id: 'The ticket this is for' },
      },
      task: 'Deploy the API and add the ticket numbers',
      workflowId: `ops-release-${randomUUID().slice(0, 8)}`,
    });
    await eventually(async () => ((await run.status()).pendingApprovals.length === 2 ? true : undefined));
    await run.approve('step-1.call-1', { decidedBy: 'alice@example.com', reason: 'change window is open' });
    await run.reject('step-1.call-2', { decidedBy: 'alice@example.com', reason: 'not in the change request' });
    await run.result();
    const page = await newPage();
    await page.goto(`${consoleServer.url}/runs/${run.workflowId}`);
    const echo = page.locator('.card.tool[data-tool="echo"]');
    await expect(echo.locator('details').first().locator('pre').textContent()).resolves.not.toContain('ticket-4711');
    await expect(echo.locator('details.injected pre').textContent()).resolves.toContain('ticket-4711');
    const add = (await page.locator('[data-tool="add"] h3').textContent()) ?? '';
    expect(add).toContain('did not run');
    expect(add).not.toMatch(/\b0 ms/);
    await expect(
      page.locator('.message.user .model').evaluate((element) => element.ownerDocument.defaultView!.getComputedStyle(element).textTransform),
    ).resolves.toBe('none');
    await expect(page.locator('#finished').textContent()).resolves.toBe('Finished: completed');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'operator-run-page.png'), fullPage: true });
  });
});
