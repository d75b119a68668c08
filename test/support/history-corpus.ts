// The replay corpus in test/histories: what a file's path says about its recording, and reading one back.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { NEWEST_PATCH, PATCHES } from '../../src/workflows/versioning/patches';

export const HISTORIES_DIR = path.resolve(__dirname, '..', 'histories');

/** The corpus's own description, the one file that is not a history. */
const README = 'README.md';

type History = temporal.api.history.v1.History;

/**
 * Which execution of its run a file holds: one of a recorded chain (`execution-2-of-3`), or the
 * whole run (null: it never continued as new).
 */
export type ExecutionPart = { index: number; count: number } | null;

/** The label of the recordings made by the code of the 0.2.0 replay baseline (no patch registered). */
export const BASELINE_LABEL = 'v0.2.0';

/** What a path in the corpus says: `<scenario>/<label>[.execution-<i>-of-<n>].json`. */
export interface CorpusPath {
  /** The folder: the test scenario that recorded it (the name given to `recordHistory`). */
  scenario: string;
  /** `since-<patch id>`: recorded when that patch was the newest in the register; `v0.2.0` (BASELINE_LABEL): before any. */
  label: string;
  execution: ExecutionPart;
}

const SCENARIO = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const FILE_NAME = /^(v0\.2\.0|since-[a-z0-9-]+)(?:\.execution-(\d+)-of-(\d+))?\.json$/;

/** The parts of a corpus path (relative to test/histories, `/`-separated), or null when it does not follow the layout. */
export function parseCorpusPath(relativePath: string): CorpusPath | null {
  const [scenario, fileName, ...rest] = relativePath.split('/');
  if (!scenario || !fileName || rest.length > 0 || !SCENARIO.test(scenario)) return null;
  const match = FILE_NAME.exec(fileName);
  if (!match) return null;
  const [, label, index, count] = match;
  if (label !== BASELINE_LABEL && !PATCHES.some((patch) => label === `since-${patch.id}`)) return null;
  const execution: ExecutionPart = index && count ? { index: Number(index), count: Number(count) } : null;
  if (execution && (execution.index < 1 || execution.index > execution.count)) return null;
  return { scenario, label: label!, execution };
}

/** The corpus path of a recording (relative to test/histories). */
export function corpusPath({ scenario, label, execution }: CorpusPath): string {
  const part = execution === null ? '' : `.execution-${execution.index}-of-${execution.count}`;
  return `${scenario}/${label}${part}.json`;
}

/** The label of a recording made by the code of this checkout: its newest patch's, or the baseline's while there is none. */
export function currentRecordingLabel(): string {
  return NEWEST_PATCH === null ? BASELINE_LABEL : `since-${NEWEST_PATCH}`;
}

/** Every file in the corpus but its README, as `/`-separated paths relative to test/histories, sorted. */
export function corpusFiles(): string[] {
  const files = readdirSync(HISTORIES_DIR, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(HISTORIES_DIR, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
  return files.filter((file) => file !== README).sort();
}

/** A corpus file's history. */
export function readCorpusHistory(relativePath: string): History {
  return historyFromJSON(JSON.parse(readFileSync(path.join(HISTORIES_DIR, relativePath), 'utf8'))) as History;
}

function startedAttributes(history: History): temporal.api.history.v1.IWorkflowExecutionStartedEventAttributes | undefined {
  return history.events?.[0]?.workflowExecutionStartedEventAttributes ?? undefined;
}

/** The workflow id the run had (replay needs it: child workflow ids derive from it), from its first event. */
export function workflowIdOf(history: History): string | undefined {
  return startedAttributes(history)?.workflowId || undefined;
}

/** The workflow type of the run (`agentRun`, `agentWorkerTools`, ...). */
export function workflowTypeOf(history: History): string | undefined {
  return startedAttributes(history)?.workflowType?.name ?? undefined;
}

/** The patch ids of the history's `core_patch` markers (what `patched()` / `deprecatePatch()` recorded), in order. */
export function patchMarkersOf(history: { events?: History['events'] | null }): string[] {
  const ids: string[] = [];
  for (const event of history.events ?? []) {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') continue;
    for (const payload of marker.details?.['patch-data']?.payloads ?? []) {
      const data = defaultPayloadConverter.fromPayload<{ id?: unknown }>(payload);
      if (typeof data?.id === 'string') ids.push(data.id);
    }
  }
  return ids;
}
