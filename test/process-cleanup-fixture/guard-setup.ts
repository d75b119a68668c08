// The main suite's guard, alone: the fixture run starts no dev server.
import { startTestRunGuard } from '../support/test-run-guard';

export default function guardSetup(): void {
  startTestRunGuard();
}
