// One label, one definition across a Worker Deployment: what a build records of its agents, and the pure check of a new worker's agents against what the deployment's builds recorded.
import type { AgentDefinition } from './define-agent';

/** The Worker Deployment Version metadata key under which a build records the agents it offers. */
export const RECORDED_AGENTS_KEY = 'durable-agents.agents';

/** What a build recorded of one agent: its version (a content hash) and its label, if any. */
export interface RecordedAgent {
  version: string;
  label: string | null;
}

/** What a build recorded of its agents, by name (the metadata value, as JSON). */
export type RecordedAgents = Record<string, RecordedAgent>;

/** The agents one build of the deployment recorded. */
export interface BuildRecord {
  buildId: string;
  agents: RecordedAgents;
}

/** The record of a worker's definitions, as it writes it on its build. */
export function recordOf(definitions: Iterable<Pick<AgentDefinition, 'name' | 'version' | 'label'>>): RecordedAgents {
  const record: RecordedAgents = {};
  for (const { name, version, label } of definitions) record[name] = { version, label };
  return record;
}

/**
 * The metadata value read back, or `null` when it is not a record (written by something else, or
 * by a later release in a shape this one does not know): such a value is skipped, not trusted.
 */
export function parseRecordedAgents(value: unknown): RecordedAgents | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const record: RecordedAgents = {};
  for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
    const { version, label } = (entry ?? {}) as { version?: unknown; label?: unknown };
    if (typeof version !== 'string' || (label !== null && typeof label !== 'string')) return null;
    record[name] = { version, label };
  }
  return record;
}

/**
 * What this worker writes on its build: the build's record with its own agents added. Other workers
 * of the build may offer agents this one does not; their entries stay.
 */
export function mergedRecord(existing: RecordedAgents | null, ours: RecordedAgents): RecordedAgents {
  return { ...existing, ...ours };
}

/**
 * Why a worker of `own.buildId` must not start with `own.agents`, one line a conflict (none: it may):
 *
 * - another worker of the same build recorded a different version of an agent (every worker of a
 *   build must offer the same definitions, or callers get one or the other by chance);
 * - any build of the deployment recorded the same name and label with a different version (the
 *   definition changed without a new label, so the label no longer says what runs).
 *
 * Unlabelled agents are checked within the build only: without a label there is no release name to keep.
 */
export function labelConflicts(own: BuildRecord, recorded: readonly BuildRecord[]): string[] {
  const problems: string[] = [];
  for (const [name, ours] of Object.entries(own.agents).sort(([a], [b]) => a.localeCompare(b))) {
    for (const build of recorded) {
      const theirs = build.agents[name];
      if (!theirs || theirs.version === ours.version) continue;
      if (build.buildId === own.buildId) {
        problems.push(
          `${name}: this worker offers version ${ours.version}${labelText(ours.label)}, but another worker of the same build '${build.buildId}' offers version ${theirs.version}${labelText(theirs.label)}; every worker of a build must offer the same definitions`,
        );
      } else if (ours.label !== null && theirs.label === ours.label) {
        problems.push(
          `${name}: label '${ours.label}' is version ${ours.version} here, but build '${build.buildId}' offers version ${theirs.version} under the same label; give the changed definition a new label`,
        );
      }
    }
  }
  return problems;
}

function labelText(label: string | null): string {
  return label === null ? ' (no label)' : ` (label '${label}')`;
}
