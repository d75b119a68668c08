import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorkerOptions } from '@temporalio/worker';
import { installedTemporalVersions } from './temporal-versions';

/**
 * Where the agent workflows come from. The package ships a bundle made at build time
 * (`dist/workflow-bundle.js`), so a worker starts without running webpack; a worker whose app has
 * workflows of its own bundles both together through the plugin's bundler hook.
 */

/** The workflow module of the agent runtime (the entry every agent bundle starts from). */
export function agentWorkflowsPath(): string {
  return require.resolve('../workflows');
}

/** Whether the agent workflows are this repository's TypeScript sources (tests, the demo, the bench), not the package's compiled code. */
export function bundlesAgentSources(): boolean {
  return agentWorkflowsPath().endsWith('.ts');
}

/** Made by `npm run build` next to the compiled code; absent when running from the sources. */
const PREBUILT_BUNDLE = path.resolve(__dirname, '..', 'workflow-bundle.js');
const PREBUILT_BUNDLE_INFO = path.resolve(__dirname, '..', 'workflow-bundle.json');

/** What the build records about the prebuilt bundle. */
export interface PrebuiltBundleInfo {
  /** The @temporalio/workflow copy inside the bundle (the app's own copy plays no part in it). */
  temporalWorkflowVersion: string;
  /** The @temporalio/worker whose bundler made it: the worker that runs it must be this exact version. */
  temporalWorkerVersion: string;
}

/** The worker settings that decide whether a prebuilt bundle can serve a worker. */
export type BundleRelevantOptions = Pick<WorkerOptions, 'interceptors' | 'dataConverter'>;

/**
 * The prebuilt bundle when it is safe for this worker, else why not.
 *
 * What must match: Temporal's worker drives a bundle through the `__TEMPORAL__.api` functions of
 * the @temporalio/workflow copy inside it, and webpack-level details of its own bundler (the
 * module cache the reusable V8 context swaps per workflow). The SDK checks none of this at run
 * time and promises it only between equal versions (its docs of `WorkerOptions.workflowBundle` ask
 * for the same @temporalio/worker to bundle and to run, to the exact version), so the rule is the
 * worker's version, exactly. The app's @temporalio/workflow does not matter: the bundle never
 * loads it. Worker settings that only a bundle can carry (workflow interceptor modules, a
 * payload or failure converter path) are not in the prebuilt one, so they need a bundle made now.
 */
export function prebuiltBundle(
  options: BundleRelevantOptions = {},
  files: { bundle: string; info: string } = { bundle: PREBUILT_BUNDLE, info: PREBUILT_BUNDLE_INFO },
  installedWorkerVersion: string | null = installedTemporalVersions()['@temporalio/worker'],
): { codePath: string } | { reason: string; fromSources?: true } {
  if (!existsSync(files.bundle) || !existsSync(files.info))
    return { reason: 'there is no prebuilt bundle (running from the sources)', fromSources: true };
  const info = JSON.parse(readFileSync(files.info, 'utf8')) as Partial<PrebuiltBundleInfo>;
  if (installedWorkerVersion !== info.temporalWorkerVersion) {
    return {
      reason:
        `the prebuilt bundle was made by @temporalio/worker ${info.temporalWorkerVersion ?? '(unknown)'} and this app has ${installedWorkerVersion ?? 'none'}; ` +
        `a worker runs only bundles its own version made (install @temporalio/worker@${info.temporalWorkerVersion} for a start without webpack)`,
    };
  }
  const bundledOnly = [
    ...((options.interceptors?.workflowModules?.length ?? 0) > 0 ? ['interceptors.workflowModules'] : []),
    ...(options.dataConverter?.payloadConverterPath ? ['dataConverter.payloadConverterPath'] : []),
    ...(options.dataConverter?.failureConverterPath ? ['dataConverter.failureConverterPath'] : []),
  ];
  if (bundledOnly.length > 0) {
    return { reason: `the worker sets ${bundledOnly.join(', ')}, which only a bundle made with them can apply (the prebuilt one has none)` };
  }
  return { codePath: files.bundle };
}

/** Writes the prebuilt bundle and its info (the package build runs this). */
export function writePrebuiltBundle(code: string, outDir: string): { bundle: string; bytes: number } {
  const versions = installedTemporalVersions();
  const info: PrebuiltBundleInfo = {
    temporalWorkflowVersion: versions['@temporalio/workflow'] ?? 'unknown',
    temporalWorkerVersion: versions['@temporalio/worker'] ?? 'unknown',
  };
  const bundle = path.join(outDir, path.basename(PREBUILT_BUNDLE));
  writeFileSync(bundle, code);
  writeFileSync(path.join(outDir, path.basename(PREBUILT_BUNDLE_INFO)), `${JSON.stringify(info, null, 2)}\n`);
  return { bundle, bytes: Buffer.byteLength(code) };
}

/**
 * A workflows entry that exports the app's workflows and the agent workflows, so one bundle (and
 * one worker) has both. Written once per app entry under the OS temp folder (the bundler reads
 * real files); the same entry gives the same file, so concurrent workers never race.
 */
export function combinedWorkflowsEntry(appWorkflowsPath: string): string {
  const appPath = path.resolve(appWorkflowsPath);
  const source = [
    "// Generated by the durable-agents worker plugin: the app's workflows and the agent workflows in one bundle.",
    `export * from ${JSON.stringify(appPath)};`,
    `export { agentRun, agentThread, agentWorkerTools, agentWorkerAgents, providerLimiter, concurrencySlots } from ${JSON.stringify(agentWorkflowsPath())};`,
    '',
  ].join('\n');
  const folder = path.join(os.tmpdir(), `durable-agents-${process.getuid?.() ?? 'user'}`);
  const file = path.join(folder, `workflows-${createHash('sha256').update(source).digest('hex').slice(0, 16)}.js`);
  if (!existsSync(file)) {
    mkdirSync(folder, { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, source);
    renameSync(partial, file);
  }
  return file;
}

/**
 * The bundler's `preloadModules` for a bundle with the agent workflows: theirs added to `others`.
 * A preloaded module is initialised once per worker thread and shared (frozen) by every workflow,
 * instead of once per workflow started or replayed, which saves CPU at each start and memory for
 * every run in the workflow cache. Safe because the agent's workflow modules keep no state at
 * module level: a run's state lives in its `RunState`.
 */
export function agentPreloadModules(others: string[] = []): string[] {
  return [...new Set([...others, agentWorkflowsPath()])];
}
