/**
 * Runs before `npm run test:cluster`: the Temporal CLI (the dev server the cluster is timed against,
 * and `temporal operator namespace create`), the Temporal server and temporal-sql-tool (each built
 * once from its Go module into .temporal-bin/), and a PostgreSQL installation to start privately.
 * `--server-only` builds just the server and the SQL tool: CI starts that early, in the background,
 * while `npm test` builds the CLI.
 */
import { findOrBuildTemporalCli } from '../src/devserver/temporal-cli';
import { postgresBinDir } from '../test/cluster/postgres';
import { findOrBuildServerBinaries } from '../test/cluster/server-binaries';

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  if (!process.argv.includes('--server-only')) console.log(`Temporal CLI: ${await findOrBuildTemporalCli({ log })}`);
  const { server, sqlTool } = await findOrBuildServerBinaries(log);
  console.log(`Temporal server: ${server}\ntemporal-sql-tool: ${sqlTool}`);
  console.log(`PostgreSQL: ${postgresBinDir()}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
