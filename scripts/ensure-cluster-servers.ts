/**
 * Runs before `npm run test:cluster`: the Temporal CLI (the dev server the cluster is timed against,
 * and `temporal operator namespace create`), the Temporal server and temporal-sql-tool (each built
 * once into .temporal-bin/; the server with the CLI's dependency versions, so after the CLI it takes
 * seconds), and a PostgreSQL installation to start privately.
 */
import { findOrBuildTemporalCli } from '../src/devserver/temporal-cli';
import { postgresBinDir } from '../test/support/postgres';
import { findOrBuildServerBinaries } from '../test/cluster/server-binaries';

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  // The CLI first: the server's build then reuses the packages compiled for it.
  await findOrBuildTemporalCli({ log }); // it says where the CLI is
  const { server, sqlTool } = await findOrBuildServerBinaries(log);
  console.log(`Temporal server: ${server}\ntemporal-sql-tool: ${sqlTool}`);
  console.log(`PostgreSQL: ${postgresBinDir()}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
