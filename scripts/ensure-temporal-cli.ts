/**
 * Makes sure a Temporal CLI is available (TEMPORAL_CLI, PATH, or built once into .temporal-bin/),
 * unless TEMPORAL_ADDRESS points at a server. Runs before `npm test`.
 */
import { findOrBuildTemporalCli } from '../src/devserver/temporal-cli';

async function main(): Promise<void> {
  if (process.env.TEMPORAL_ADDRESS) {
    console.log(`TEMPORAL_ADDRESS=${process.env.TEMPORAL_ADDRESS}: using that server; no Temporal CLI needed.`);
    return;
  }
  await findOrBuildTemporalCli({ log: (line) => console.log(line) }); // it says where the CLI is
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
