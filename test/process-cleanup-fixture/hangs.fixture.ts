// A test that leaves a process running and then hangs, until the run is interrupted (Ctrl-C) before any teardown.
import { expect, it } from '@jest/globals';
import { leaveProcessRunning } from './leftover-process';

it('starts a process and waits for ever', async () => {
  expect(leaveProcessRunning()).toBeGreaterThan(0);
  await new Promise(() => {});
}, 3_600_000);
