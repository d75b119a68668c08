import { rmSync } from 'node:fs';
import type { DevServer } from '../../src/devserver/dev-server';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { agentTestServer?: DevServer }).agentTestServer?.stop();
  if (process.env.AGENT_TEST_SCRATCH) rmSync(process.env.AGENT_TEST_SCRATCH, { recursive: true, force: true });
}
