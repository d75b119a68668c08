// The main suite's leftover check, alone, with a short grace period.
import { assertNoLeftoverProcesses } from '../support/test-run-guard';

export default function guardTeardown(): Promise<void> {
  return assertNoLeftoverProcesses(2_000);
}
