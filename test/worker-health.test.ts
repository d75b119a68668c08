import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from '@jest/globals';
import { startWorkerProcess } from './support/worker-process';

/** The worker's readiness file (docker-compose.yml's worker health check reads its age). */
const folder = mkdtempSync(path.join(os.tmpdir(), 'worker-health-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

async function waitFor(condition: () => boolean, what: string, withinMs = 30_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('worker health file', () => {
  it('is rewritten while the worker polls and removed when it stops', async () => {
    const file = path.join(folder, 'health.json');
    const worker = await startWorkerProcess(`health-${randomUUID()}`, { AGENT_WORKER_HEALTH_FILE: file });
    try {
      await waitFor(() => existsSync(file), 'the health file');
      const status = JSON.parse(readFileSync(file, 'utf8')) as { runState: string; workflowPollerState: string; pid: number };
      expect(status).toMatchObject({ runState: 'RUNNING', workflowPollerState: 'POLLING', activityPollerState: 'POLLING', pid: worker.child.pid });
      const first = statSync(file).mtimeMs;
      await waitFor(() => statSync(file).mtimeMs > first, 'a fresh write', 15_000);
    } finally {
      await worker.kill('SIGTERM');
    }
    expect(existsSync(file)).toBe(false);
  });
});
