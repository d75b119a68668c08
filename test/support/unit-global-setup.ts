// The unit project's global setup: only the guard against leftover processes (some unit tests start
// a child process that needs no server). No dev server, no workflow bundle.
import { startTestRunGuard } from './test-run-guard';

export default function unitGlobalSetup(): void {
  startTestRunGuard();
}
