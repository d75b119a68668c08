// A user's own workflow that runs an agent as its child (`runAgent`), for tests of the plugin's combined bundle.
import { runAgent } from '../../src/workflow-api';

/** Runs the `greeter` agent on `task` and returns its answer. */
export async function greetThroughAgent(task: string): Promise<string> {
  const { output } = await runAgent({ config: { name: 'greeter', model: 'scripted:hello' }, task });
  return output;
}
