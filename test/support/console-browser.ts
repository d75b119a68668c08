// Signing in to a console in a browser and finding an approval's card, for the console's browser tests.
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { eventually } from './test-env';

/** A new browser context signed in to the console at `url` with `token` (its contexts are pushed to `contexts` for closing). */
export async function signedIn(browser: Browser, contexts: BrowserContext[], url: string, token: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${url}/`);
  await page.waitForURL(/\/login$/);
  await page.fill('input[name=token]', token);
  await page.click('button[type=submit]');
  await page.waitForURL(`${url}/`);
  return page;
}

/** The inbox cards of `workflowId`'s pending calls, once visibility lists the run (reloading `inbox` until then). */
export async function inboxCard(page: Page, inbox: string, workflowId: string, count = 1): Promise<Locator> {
  const card = page.locator(`article[data-approval^="${workflowId}/"]`);
  await eventually(async () => {
    if ((await card.count()) >= count) return true;
    await page.goto(inbox);
    return (await card.count()) >= count;
  }, 30_000);
  return card;
}

/** The browser tests' people and their console tokens. */
export const tokens = { alice: 'alice-token-0123456789abcdef', bob: 'bob-token-0123456789abcdef' };

/** `tokens` as an access file's `tokens`. */
export const accessTokens = [
  { identity: 'alice@example.com', token: tokens.alice },
  { identity: 'bob@example.com', token: tokens.bob },
];
