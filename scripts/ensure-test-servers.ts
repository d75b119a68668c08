/**
 * Runs before `npm test`: makes sure the real servers the tests start are here — the Temporal CLI
 * (its dev server; TEMPORAL_CLI, PATH, or built once into .temporal-bin/, unless TEMPORAL_ADDRESS
 * points at a server), versitygw (an S3-compatible server, for the shared artifact store), and a
 * PostgreSQL installation (the PostgreSQL memory store's tests start a private one).
 */
import { findOrBuildTemporalCli } from '../src/devserver/temporal-cli';
import { postgresBinDir } from '../test/support/postgres';
import { findOrBuildVersitygw } from '../test/support/s3-server';

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  if (process.env.TEMPORAL_ADDRESS) console.log(`TEMPORAL_ADDRESS=${process.env.TEMPORAL_ADDRESS}: using that server; no Temporal CLI needed.`);
  else await findOrBuildTemporalCli({ log }); // it says where the CLI is
  console.log(`versitygw: ${await findOrBuildVersitygw(log)}`);
  console.log(`PostgreSQL: ${postgresBinDir()}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
