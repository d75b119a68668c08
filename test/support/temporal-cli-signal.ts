// Sends a signal with the Temporal CLI binary itself (`temporal workflow signal`), as an operator at a terminal would.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { resolveTemporalTarget } from '../../src/connection/temporal-target';
import { findOrBuildTemporalCli } from '../../src/devserver/temporal-cli';

/** `temporal workflow signal -w <workflowId> --name <name> --input <JSON of input>` against the test run's server. */
export async function signalWithTemporalCli(workflowId: string, name: string, input: unknown): Promise<void> {
  const target = resolveTemporalTarget();
  const args = ['workflow', 'signal', '--address', target.address, '--namespace', target.namespace];
  await promisify(execFile)(await findOrBuildTemporalCli(), [...args, '--workflow-id', workflowId, '--name', name, '--input', JSON.stringify(input)]);
}
