/**
 * Runs before `npm test`: makes sure the real servers the tests start are here — the Temporal CLI
 * (its dev server; TEMPORAL_CLI, PATH, or built once into .temporal-bin/, unless TEMPORAL_ADDRESS
 * points at a server), the OpenTelemetry Collector (built once from tools/otelcol, in parallel
 * with the CLI: both are mostly downloads and compiles of Go modules), versitygw (an S3-compatible
 * server, for the shared artifact store), and a PostgreSQL installation (the PostgreSQL memory
 * store's tests start a private one), and Debian's chromium (the console's browser tests).
 */
import { findOrBuildTemporalCli } from '../src/devserver/temporal-cli';
import { postgresBinDir } from '../test/support/postgres';
import { findOrBuildCollector } from '../test/support/otel-collector';
import { findOrBuildVersitygw } from '../test/support/s3-server';
import { findOrInstallChromium } from '../test/support/chromium';

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const temporalCli = process.env.TEMPORAL_ADDRESS
    ? Promise.resolve(console.log(`TEMPORAL_ADDRESS=${process.env.TEMPORAL_ADDRESS}: using that server; no Temporal CLI needed.`))
    : findOrBuildTemporalCli({ log }); // it says where the CLI is
  const [, collector] = await Promise.all([temporalCli, findOrBuildCollector(log)]);
  console.log(`OpenTelemetry Collector: ${collector}`);
  console.log(`versitygw: ${await findOrBuildVersitygw(log)}`);
  console.log(`PostgreSQL: ${postgresBinDir()}`);
  console.log(`Chromium: ${findOrInstallChromium(log)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
