// A test that passes but leaves a process running: the run must fail in its teardown.
import { expect, it } from '@jest/globals';
import { leaveProcessRunning } from './leftover-process';

it('starts a process and forgets it', () => {
  expect(leaveProcessRunning()).toBeGreaterThan(0);
});
