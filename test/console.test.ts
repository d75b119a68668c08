import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { StartRunOptions } from '../src/client/agent-client';
import { FolderArtifactStore } from '../src/artifacts/folder-artifact-store';
import { startConsole, type RunningConsole } from '../src/console/console-server';
import { defineTool } from '../src/tools/define-tool';
import { ErrorCode } from '../src/protocol/errors';
import { closeBrowser, launchChromium } from './support/chromium';
import { accessTokens, inboxCard as cardIn, signedIn as signedInTo, tokens } from './support/console-browser';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * The console in a real browser (Debian's chromium driven by playwright-core) against the real
 * dev server and a real worker: the inbox, deciding (alone and two at once), a thread's streamed
 * answer, the actions, and what is refused without a token or a CSRF token. Screenshots go to
 * .test-output/console/ for review.
 */

const SCREENSHOTS = path.resolve(__dirname, '..', '.test-output', 'console');
const streamedAnswer =
  'Our refund policy: you can return any item within thirty days of delivery, in its original packaging, and we refund the full price to the card you paid with.';
const testTools = createTestTools();
const longReport = Array.from({ length: 120 }, (_, line) => `line ${line + 1}: all systems nominal`).join('\n');
const report = defineTool({ name: 'report', description: 'A long status report.', parameters: z.object({}), execute: () => longReport });
let artifactFolder: string;
let env: TestEnvironment;
let consoleServer: RunningConsole;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  artifactFolder = mkdtempSync(path.join(os.tmpdir(), 'console-artifacts-'));
  const artifacts = new FolderArtifactStore(artifactFolder);
  env = await createTestEnvironment({
    tools: [...testTools.tools, report],
    artifacts,
    scripts: {
      deploy: {
        replies: [
          {
            text: 'I will deploy the API now.',
            toolCalls: [{ name: 'echo', args: { text: 'deploy api to production', ui_request_id: 'ticket-4711' } }],
          },
          { text: 'Deployed: {{tool:echo}}' },
        ],
      },
      sum: { replies: [{ toolCalls: [{ name: 'add', args: { a: 2, b: 3 } }] }, { text: 'The sum is {{tool:add}}' }] },
      report: { replies: [{ toolCalls: [{ name: 'report', args: {} }] }, { text: 'All nominal.' }] },
      chat: { replies: [{ text: 'Hello! Ask me about refunds.' }, { text: streamedAnswer, streamMs: 120 }] },
    },
  });
  consoleServer = await startConsole({
    agents: env.agents,
    artifacts,
    port: 0,
    pollMs: 500,
    access: {
      tokens: accessTokens,
      approvers: [{ tools: ['add'], identities: ['alice@example.com'] }],
    },
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await closeBrowser(browser, contexts);
  await consoleServer?.close();
  await env?.close();
  if (artifactFolder) rmSync(artifactFolder, { recursive: true, force: true });
});

function gated(script: string): StartRunOptions['config'] {
  return {
    name: 'deployer',
    model: `scripted:${script}`,
    tools: ['echo', 'add'],
    hitl_tools: ['echo', 'add'],
    injected_tool_args: { ui_request_id: 'The ticket this is for' },
  };
}

function signedIn(token: string): Promise<Page> {
  return signedInTo(browser, contexts, consoleServer.url, token);
}

/** The inbox card of `workflowId`'s pending call, once visibility lists the run (reloading until then). */
function inboxCard(page: Page, workflowId: string) {
  return cardIn(page, `${consoleServer.url}/`, workflowId);
}

describe('the console in a browser', () => {
  it('shows a pending approval in the inbox, approves it as the signed-in person, and the run page follows live', async () => {
    const run = await env.agents.startRun({
      config: gated('deploy'),
      task: 'Deploy the API',
      workflowId: `console-approve-${randomUUID().slice(0, 8)}`,
    });
    const [alice, bob] = await Promise.all([signedIn(tokens.alice), signedIn(tokens.bob)]);
    const card = await inboxCard(alice, run.workflowId);
    await inboxCard(bob, run.workflowId); // bob watches the inbox: alice's decision reaches it live
    await expect(card.textContent()).resolves.toContain('deploy api to production');
    const text = (await card.textContent()) ?? '';
    expect(text).toContain('echo');
    expect(text).toContain('ticket-4711'); // the injected argument, shown apart
    expect(text).toContain('if nobody decides by then, the call does not run');
    await card.locator('summary').click();
    await expect(card.locator('.conversation').textContent()).resolves.toContain('Deploy the API');
    await alice.screenshot({ path: path.join(SCREENSHOTS, 'inbox.png'), fullPage: true });

    // The run's page, open in a second tab before the decision, updates by itself.
    const runPage = await alice.context().newPage();
    await runPage.goto(`${consoleServer.url}/runs/${run.workflowId}`);
    await expect(runPage.locator('#run-status').textContent()).resolves.toContain('awaiting approval');

    await card.locator('input[name=reason]').fill('change window is open');
    await card.locator('button.approve').click();
    await alice.locator('#notice', { hasText: 'approved by alice@example.com' }).waitFor();
    await alice.locator(`article[data-approval^="${run.workflowId}/"]`).waitFor({ state: 'detached' });
    await bob.locator(`article[data-approval^="${run.workflowId}/"]`).waitFor({ state: 'detached', timeout: 20_000 });

    await expect(run.result()).resolves.toMatchObject({ output: 'Deployed: deploy api to production' });
    await runPage.locator('#finished').waitFor({ timeout: 20_000 });
    const tool = runPage.locator('[data-tool="echo"]');
    await expect(tool.textContent()).resolves.toContain('deploy api to production');
    const conversation = (await runPage.locator('#conversation').textContent()) ?? '';
    expect(conversation).toContain('Approved step-1.call-1 by alice@example.com: change window is open');
    expect(conversation).toContain('Deployed: deploy api to production');
    await runPage.screenshot({ path: path.join(SCREENSHOTS, 'run-page.png'), fullPage: true });
  });

  it('lets one of two approvers deciding at once win, and tells the other who decided', async () => {
    const before = testTools.executions.filter((execution) => execution.tool === 'echo').length;
    const run = await env.agents.startRun({
      config: gated('deploy'),
      task: 'Deploy the API',
      workflowId: `console-race-${randomUUID().slice(0, 8)}`,
    });
    const [alice, bob] = await Promise.all([signedIn(tokens.alice), signedIn(tokens.bob)]);
    const [aliceCard, bobCard] = await Promise.all([inboxCard(alice, run.workflowId), inboxCard(bob, run.workflowId)]);
    await Promise.all([aliceCard.locator('button.approve').click(), bobCard.locator('button.reject').click()]);
    const notices = await Promise.all(
      [alice, bob].map(async (page) => {
        // Both decisions go through the server at once: on a busy machine the slower one takes a while.
        await page.locator('#notice:not(:empty)').waitFor({ timeout: 90_000 });
        return (await page.locator('#notice').textContent()) ?? '';
      }),
    );
    const winners = notices.filter((notice) => !notice.startsWith('Already'));
    expect(winners).toHaveLength(1);
    const loser = notices.find((notice) => notice.startsWith('Already'))!;
    const winner = winners[0]!.includes('alice') ? 'alice@example.com' : 'bob@example.com';
    expect(loser).toContain(`by ${winner}`);
    expect(loser).toContain('your decision was not applied');
    await (winner === 'alice@example.com' ? bob : alice).screenshot({ path: path.join(SCREENSHOTS, 'two-approvers.png') });
    const result = await run.result();
    const echoRuns = testTools.executions.filter((execution) => execution.tool === 'echo').length - before;
    expect(echoRuns).toBe(winner === 'alice@example.com' ? 1 : 0);
    expect(result.toolResults[0]?.metadata.approval_decided_by).toBe(winner);
  });

  it('streams a thread turn while it is written, then shows the whole conversation', async () => {
    const threadId = `console-thread-${randomUUID().slice(0, 8)}`;
    const thread = env.agents.thread(threadId, { config: { name: 'support', model: 'scripted:chat' } });
    await (await thread.send('Hi there')).result();
    const alice = await signedIn(tokens.alice);
    await alice.goto(`${consoleServer.url}/runs/${threadId}`);
    await expect(alice.locator('#conversation').textContent()).resolves.toContain('Hello! Ask me about refunds.');
    await alice.fill('textarea[name=text]', 'What is your refund policy?');
    await alice.click('form[aria-label="Send a message"] button[type=submit]');
    await alice.locator('#notice', { hasText: 'Message started (turn 2)' }).waitFor();
    // Part of the answer, while the model step still writes it (it is never in the history).
    const partial = await eventually(async () => {
      const live = (await alice.locator('#live').textContent()) ?? '';
      return live.length > 0 && live.length < streamedAnswer.length ? live : undefined;
    }, 20_000);
    expect(streamedAnswer.startsWith(partial.trim())).toBe(true);
    await alice.screenshot({ path: path.join(SCREENSHOTS, 'thread-streaming.png'), fullPage: true });
    await alice.locator('[data-turn="2"]', { hasText: 'thirty days of delivery' }).waitFor({ timeout: 30_000 });
    const turn = (await alice.locator('[data-turn="2"]').textContent()) ?? '';
    expect(turn).toContain('What is your refund policy?');
    expect(turn).toContain(streamedAnswer);
    await alice.screenshot({ path: path.join(SCREENSHOTS, 'thread.png'), fullPage: true });
  });

  it('injects into a run, cancels it, and forks a finished one, each after a confirmation and with its result shown', async () => {
    const finished = await env.agents.startRun({
      config: gated('deploy'),
      task: 'Deploy the API',
      workflowId: `console-origin-${randomUUID().slice(0, 8)}`,
    });
    await eventually(async () => ((await finished.status()).pendingApprovals.length === 1 ? true : undefined));
    await finished.approve('step-1.call-1', { decidedBy: 'test' });
    await finished.result();
    const run = await env.agents.startRun({
      config: gated('sum'),
      task: 'Add two and three',
      workflowId: `console-actions-${randomUUID().slice(0, 8)}`,
    });
    const alice = await signedIn(tokens.alice);
    await inboxCard(alice, run.workflowId);
    const dialogs: string[] = [];
    alice.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    await alice.goto(`${consoleServer.url}/runs/${run.workflowId}`);
    await alice.fill('form[aria-label="Inject a message"] textarea', 'Use exact integers.');
    await alice.click('form[aria-label="Inject a message"] button');
    await alice.locator('#notice', { hasText: 'Message queued for the next model call' }).waitFor();
    await alice.click('form[aria-label="Cancel"] button');
    await alice.locator('#notice', { hasText: 'Cancellation requested' }).waitFor();
    await eventually(async () => (await run.workflow.describe()).status.name === 'CANCELLED');
    await alice.locator('#run-status', { hasText: 'cancelled' }).waitFor({ timeout: 20_000 });

    await alice.goto(`${consoleServer.url}/runs/${finished.workflowId}`);
    await alice.fill('form[aria-label="Fork"] input[name=text]', 'Say it again.');
    await alice.click('form[aria-label="Fork"] button');
    await alice.locator('#notice', { hasText: `a fork of ${finished.workflowId} after step 1` }).waitFor();
    const forkId = /Started (\S+), a fork/.exec((await alice.locator('#notice').textContent()) ?? '')![1]!;
    await expect(env.agents.getRun(forkId).result()).resolves.toMatchObject({ output: 'Deployed: deploy api to production' });
    expect(dialogs).toEqual(['Cancel this run?', "Start a new run from this run's conversation?"]);

    // The run list finds the fork by its id prefix and links it to its origin.
    await eventually(async () => {
      await alice.goto(`${consoleServer.url}/runs?q=${encodeURIComponent(forkId)}`);
      return (await alice.locator('tbody tr').count()) === 1;
    });
    await expect(alice.locator('tbody tr').textContent()).resolves.toContain(`fork of ${finished.workflowId}`);
    await expect(alice.locator(`tbody a[href="/runs/${finished.workflowId}"]`).count()).resolves.toBe(1);
  });

  it('shows a tool result stored outside the history when asked for it', async () => {
    const run = await env.agents.startRun({
      config: { name: 'reporter', model: 'scripted:report', tools: ['report'], offload_threshold: 1_000 },
      task: 'Report',
      workflowId: `console-offload-${randomUUID().slice(0, 8)}`,
    });
    await run.result();
    const alice = await signedIn(tokens.alice);
    await alice.goto(`${consoleServer.url}/runs/${run.workflowId}`);
    const card = alice.locator('[data-tool="report"]');
    expect((await card.locator('pre').last().textContent())!.length).toBeLessThan(longReport.length);
    await card.locator('button[data-artifact]').click();
    await card.locator('pre', { hasText: 'line 120: all systems nominal' }).waitFor();
    await expect(card.locator('pre').last().textContent()).resolves.toBe(longReport);
    const elsewhere = await alice.context().request.get(`${consoleServer.url}/runs/${run.workflowId.replace('offload', 'other')}/artifacts/x`);
    expect(elsewhere.status()).toBe(404);
  });

  it('lists the schedules with when they fire, what they do, their state and next fires, to signed-in people only', async () => {
    const scheduleId = `console-sched-${randomUUID().slice(0, 8)}`;
    await env.agents.schedules.create(scheduleId, {
      spec: { cron: '0 9 * * 1-5', timezone: 'Europe/Paris' },
      action: { kind: 'run', config: { name: 'reporter', model: 'scripted:sum' }, task: 'Weekday report' },
      paused: true,
      note: 'until launch',
    });
    try {
      const anonymous = await fetch(`${consoleServer.url}/schedules`, { headers: { accept: 'text/html' }, redirect: 'manual' });
      expect({ status: anonymous.status, location: anonymous.headers.get('location') }).toEqual({ status: 303, location: '/login' });
      const page = await signedIn(tokens.bob);
      const row = page.locator('tr', { hasText: scheduleId });
      await eventually(async () => {
        await page.goto(`${consoleServer.url}/schedules`);
        return (await row.count()) > 0;
      }, 60_000);
      const cells = (await row.locator('td').allInnerTexts()).map((text) => text.trim());
      expect(cells.slice(0, 4)).toEqual([scheduleId, 'cron 0 9 * * 1-5, Europe/Paris', 'run reporter: Weekday report', 'paused until launch']);
      expect(cells[4]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:00 UTC/);
      expect(await page.locator('nav a[aria-current=page]').innerText()).toBe('Schedules');
      await page.screenshot({ path: path.join(SCREENSHOTS, 'schedules.png'), fullPage: true });
    } finally {
      await env.agents.schedules.delete(scheduleId);
    }
  });

  it('refuses actions without a token, without the CSRF token, and decisions the approver rules forbid', async () => {
    const run = await env.agents.startRun({
      config: gated('sum'),
      task: 'Add two and three',
      workflowId: `console-refused-${randomUUID().slice(0, 8)}`,
    });
    const decide = `${consoleServer.url}/runs/${run.workflowId}/approvals/step-1.call-1`;
    const anonymous = await fetch(decide, { method: 'POST', body: new URLSearchParams({ decision: 'approve' }) });
    expect(anonymous.status).toBe(401);
    const wrongToken = await fetch(decide, {
      method: 'POST',
      headers: { Authorization: 'Bearer not-a-token-of-anyone' },
      body: new URLSearchParams({ decision: 'approve' }),
    });
    expect(wrongToken.status).toBe(401);
    const page = await fetch(`${consoleServer.url}/`, { headers: { Accept: 'text/html' }, redirect: 'manual' });
    expect([page.status, page.headers.get('location')]).toEqual([303, '/login']);

    const bob = await signedIn(tokens.bob);
    const withoutCsrf = await bob.context().request.post(decide, { form: { decision: 'approve' } });
    expect(withoutCsrf.status()).toBe(403);
    const crossSite = await fetch(decide, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokens.bob}`, Origin: 'https://evil.example', 'X-CSRF-Token': 'x' },
      body: new URLSearchParams({ decision: 'approve' }),
    });
    expect(crossSite.status).toBe(403);

    // bob is told who may decide and gets no buttons; a decision posted anyway is refused by the server.
    const card = await inboxCard(bob, run.workflowId);
    await expect(card.locator('.deciders').textContent()).resolves.toContain('alice@example.com');
    expect(await card.locator('button').count()).toBe(0);
    await bob.screenshot({ path: path.join(SCREENSHOTS, 'forbidden.png') });
    const csrf = await bob.locator('header form input[name=csrf]').getAttribute('value');
    const refused = await bob.context().request.post(decide, { form: { decision: 'approve', csrf: csrf! }, headers: { Accept: 'application/json' } });
    expect(refused.status()).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toContain('bob@example.com may not decide calls of add');
    expect((await run.status()).pendingApprovals.map((approval) => approval.approvalId)).toEqual(['step-1.call-1']);
    await run.workflow.cancel();

    await expect(startConsole({ agents: env.agents, host: '0.0.0.0', port: 0 })).rejects.toMatchObject({ code: ErrorCode.agentConfigInvalid });
  });
});
