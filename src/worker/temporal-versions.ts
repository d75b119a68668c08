/**
 * The Temporal SDK packages are peer dependencies: the app brings one copy (one native module).
 * This checks, once per process, that the copy it brought is one this package supports, and says
 * what to install otherwise.
 */

/**
 * The Temporal SDK releases this package is built and tested against (a semver range). Creating
 * an `AgentPlugin` checks the installed `@temporalio/*` packages against it (once per process) and
 * throws, naming what to install, when one is missing or outside it.
 * @example
 * import { SUPPORTED_TEMPORAL_RANGE } from 'durable-agents/worker';
 *
 * console.log(`durable-agents supports @temporalio/* ${SUPPORTED_TEMPORAL_RANGE}`); // >=1.24.0 <2.0.0
 */
export const SUPPORTED_TEMPORAL_RANGE = '>=1.24.0 <2.0.0';

const PACKAGES = ['@temporalio/worker', '@temporalio/workflow', '@temporalio/client', '@temporalio/activity', '@temporalio/common'] as const;

let checked = false;

/** The installed version of each Temporal package this package uses (null when missing). */
export function installedTemporalVersions(): Record<string, string | null> {
  const versions: Record<string, string | null> = {};
  for (const name of PACKAGES) {
    try {
      versions[name] = (require(`${name}/package.json`) as { version: string }).version;
    } catch {
      versions[name] = null;
    }
  }
  return versions;
}

/**
 * @throws Error naming each missing or unsupported package and the range to install, e.g.
 * `npm install @temporalio/worker@^1.24.0`.
 */
export function assertSupportedTemporal(versions?: Record<string, string | null>): void {
  if (!versions && checked) return;
  const problems = Object.entries(versions ?? installedTemporalVersions()).flatMap(([name, version]) => {
    if (version === null) return [`${name} is not installed`];
    return isSupported(version) ? [] : [`${name} ${version} is outside ${SUPPORTED_TEMPORAL_RANGE}`];
  });
  if (problems.length > 0) {
    throw new Error(
      `durable-agents needs the Temporal TypeScript SDK ${SUPPORTED_TEMPORAL_RANGE} in your project: ${problems.join('; ')}. ` +
        `Install matching versions, e.g. npm install ${PACKAGES.map((name) => `${name}@^1.24.0`).join(' ')}`,
    );
  }
  if (!versions) checked = true;
}

function isSupported(version: string): boolean {
  const [major, minor] = version.split('.').map((part) => Number.parseInt(part, 10));
  return major === 1 && minor !== undefined && minor >= 24;
}
