// Debian's chromium for the console's browser tests: found on PATH, or installed with apt-get (never a Playwright download).
import { execFileSync } from 'node:child_process';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { findOnPath } from '../../src/devserver/temporal-cli';

/**
 * The chromium binary: CHROMIUM, PATH (`chromium`, `chromium-browser`), or Debian's package
 * installed now with apt-get when this process may (root); otherwise an error saying how to get it.
 */
export function findOrInstallChromium(log: (line: string) => void = () => {}): string {
  const found = process.env.CHROMIUM ?? findOnPath('chromium') ?? findOnPath('chromium-browser');
  if (found) return found;
  if (process.getuid?.() !== 0 || !findOnPath('apt-get')) {
    throw new Error('The console browser tests need chromium: `apt-get install -y chromium` (Debian), or set CHROMIUM to a Chromium binary');
  }
  log("Installing Debian's chromium with apt-get (first time only)...");
  const install = () =>
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  try {
    install();
  } catch {
    // A fresh image has no package lists yet.
    execFileSync('apt-get', ['update'], { stdio: 'ignore' });
    install();
  }
  const installed = findOnPath('chromium');
  if (!installed) throw new Error('apt-get installed chromium, but it is not on PATH');
  return installed;
}

/** Debian's chromium started headless by playwright-core, with the flags a container needs (no sandbox, no GPU, no /dev/shm). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: findOrInstallChromium(), args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

/** Closes a test's browser contexts, then the browser (either may be missing after a failed setup). */
export async function closeBrowser(browser: Browser | undefined, contexts: readonly BrowserContext[]): Promise<void> {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
}
