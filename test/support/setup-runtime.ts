import { DefaultLogger, Runtime } from '@temporalio/worker';

// Quiet the SDK's INFO lines (worker state changes) in test output; warnings and errors stay.
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Already installed in this process by an earlier test file.
}
