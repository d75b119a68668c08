// Stops the test run's dev server and removes its scratch folder; the run fails if any process it started is still alive.
import { rmSync } from 'node:fs';
import type { DevServer } from '../../src/devserver/dev-server';
import { assertNoLeftoverProcesses } from './test-run-guard';

const holder = globalThis as { agentTestServer?: DevServer };

/** The dev server the integration project's global setup started, while it runs. */
export function runningTestServer(): DevServer | undefined {
  return holder.agentTestServer;
}

export default async function globalTeardown(): Promise<void> {
  try {
    await holder.agentTestServer?.stop();
    delete holder.agentTestServer;
  } finally {
    try {
      await assertNoLeftoverProcesses();
    } finally {
      if (process.env.AGENT_TEST_SCRATCH) rmSync(process.env.AGENT_TEST_SCRATCH, { recursive: true, force: true });
    }
  }
}
