// Stops the test run's dev server and removes its scratch folder; the run fails if any process it started is still alive.
import { rmSync } from 'node:fs';
import type { DevServer } from '../../src/devserver/dev-server';
import { assertNoLeftoverProcesses } from './test-run-guard';

export default async function globalTeardown(): Promise<void> {
  try {
    await (globalThis as { agentTestServer?: DevServer }).agentTestServer?.stop();
  } finally {
    try {
      await assertNoLeftoverProcesses();
    } finally {
      if (process.env.AGENT_TEST_SCRATCH) rmSync(process.env.AGENT_TEST_SCRATCH, { recursive: true, force: true });
    }
  }
}
