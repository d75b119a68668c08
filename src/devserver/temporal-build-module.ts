// The Go module the Temporal CLI (and the cluster tests' server) are built in: the CLI's code at a fixed tag against a newer Temporal server release.
import { chmodSync, cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runGo } from './go-build';

/** The Temporal CLI tag whose code we build: the newest one the Go module proxy can build (see below). */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
/** The Temporal server release compiled into it (and into the cluster tests' server binaries). */
export const TEMPORAL_SERVER_VERSION = 'v1.32.2';
/** Names a build of the two versions (its folder under .temporal-bin/, its build record). */
export const TEMPORAL_BUILD_NAME = `cli-${TEMPORAL_CLI_VERSION}-server-${TEMPORAL_SERVER_VERSION}`;

const CLI_MODULE = 'github.com/temporalio/cli';
const SERVER_MODULE = 'go.temporal.io/server';
/** The server module's own go.mod asks for this Go release; the go command fetches it from the module proxy when the machine's is older. */
const GO_VERSION = '1.26.10';

/**
 * Why this build and not `go install github.com/temporalio/cli/cmd/temporal@latest`:
 * - CLI tags after v1.5.1 `replace` their `cliext` sub-module with a local folder that the module
 *   proxy does not serve, so they cannot be built from it.
 * - v1.5.1's own dependencies embed server 1.29.1, which lacks upgrade on continue-as-new (the
 *   `target_worker_deployment_version_changed` flag the thread and the limiters move to a new
 *   Worker Deployment Version with: docs/deployment.md).
 * So a generated module requires v1.5.1 and server 1.32.2 (minimal version selection then takes the
 * newer server and its dependencies), with the CLI's source taken from the module cache into the
 * module and three lines of its code changed for APIs that moved: `dynamicconfig.Key` became a
 * struct (`MakeKey` builds one), the callbacks component's settings moved to `chasm/lib/callback`
 * (same names), and the worker host info's process key is now its grouping key (`worker describe`
 * prints it). Each change must apply exactly once, or the build stops saying so.
 */
const SOURCE_CHANGES: readonly { file: string; from: string; to: string }[] = [
  { file: 'temporalcli/devserver/server.go', from: 'dynamicconfig.Key(k)', to: 'dynamicconfig.MakeKey(k)' },
  {
    file: 'temporalcli/devserver/server.go',
    from: '\t"go.temporal.io/server/components/callbacks"',
    to: '\tcallbacks "go.temporal.io/server/chasm/lib/callback"',
  },
  { file: 'temporalcli/commands.worker.go', from: 'info.GetProcessKey()', to: 'info.GetWorkerGroupingKey()' },
];

/**
 * Environment for `go` in the generated module: it may fill go.sum from the proxy (no `go mod
 * tidy`, which would drop requirements nothing imports yet), and it may fetch the Go release the
 * server asks for (GOTOOLCHAIN `local`, as set on some machines, would refuse; a named release the
 * caller set is kept).
 */
export const BUILD_MODULE_GO_ENV = {
  GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod`.trim(),
  GOTOOLCHAIN: process.env.GOTOOLCHAIN?.startsWith('go') ? process.env.GOTOOLCHAIN : 'auto',
};

/**
 * Writes the build module into `folder` (empty): go.mod, and the CLI's source under `cli/` with the
 * changes above. Packages of the CLI and of the server can then be built there with `go install`.
 * @throws Error when a source change no longer matches the CLI's code.
 */
export async function writeTemporalBuildModule(folder: string, log: (line: string) => void): Promise<void> {
  const cliSource = await moduleSourceFolder(`${CLI_MODULE}@${TEMPORAL_CLI_VERSION}`, folder, log);
  const copy = path.join(folder, 'cli');
  cpSync(cliSource, copy, { recursive: true });
  // The module cache's folders and files are read-only: folders made writable, so the copy can be deleted.
  makeFoldersWritable(copy);
  for (const change of SOURCE_CHANGES) {
    const file = path.join(copy, change.file);
    const text = readFileSync(file, 'utf8');
    if (text.split(change.from).length !== 2) {
      throw new Error(
        `Building the Temporal CLI ${TEMPORAL_CLI_VERSION} with server ${TEMPORAL_SERVER_VERSION}: expected "${change.from}" once in ${change.file}`,
      );
    }
    chmodSync(file, 0o644);
    writeFileSync(file, text.replace(change.from, change.to));
  }
  writeFileSync(
    path.join(folder, 'go.mod'),
    `module durable-agents/temporal-build\n\ngo ${GO_VERSION}\n\nrequire (\n\t${CLI_MODULE} ${TEMPORAL_CLI_VERSION}\n\t${SERVER_MODULE} ${TEMPORAL_SERVER_VERSION}\n)\n\nreplace ${CLI_MODULE} => ./cli\n`,
  );
}

function makeFoldersWritable(folder: string): void {
  chmodSync(folder, 0o755);
  for (const entry of readdirSync(folder, { withFileTypes: true })) if (entry.isDirectory()) makeFoldersWritable(path.join(folder, entry.name));
}

/** Where the module cache holds a module's source (downloading it first when absent). */
async function moduleSourceFolder(moduleAtVersion: string, cwd: string, log: (line: string) => void): Promise<string> {
  const lines: string[] = [];
  await runGo(['mod', 'download', '-json', moduleAtVersion], { cwd, env: { GOFLAGS: '-mod=mod' } }, (line) => lines.push(line.trim()));
  const dir = lines.map((line) => /^"Dir": "(.*)",?$/.exec(line)?.[1]).find(Boolean);
  if (!dir) {
    log(lines.join('\n'));
    throw new Error(`go mod download ${moduleAtVersion} named no source folder`);
  }
  return dir;
}
