// The unit project's global teardown: the run fails if a process a test started is still alive.
import { assertNoLeftoverProcesses } from './test-run-guard';
import { runningTestServer } from './global-teardown';

export default async function unitGlobalTeardown(): Promise<void> {
  // In a run of both projects the dev server is still up until the integration project's teardown
  // stops it; that teardown then does this check, with the server gone.
  if (runningTestServer()) return;
  await assertNoLeftoverProcesses();
}
