import { msToTs, tsToMs } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import { formatDuration, isDuration, parseDuration } from '../config/duration';

/** The retention `durable-agents setup` gives a namespace it creates. */
export const DEFAULT_NAMESPACE_RETENTION = '30d';

/** The shortest retention a Temporal server accepts for a (local) namespace. */
const MIN_RETENTION_MS = 3_600_000;
/** Longer than this is taken for a typo (a unit left out, a zero too many). */
const MAX_RETENTION_MS = 3650 * 86_400_000;

const NOT_FOUND = 5;
const ALREADY_EXISTS = 6;

/**
 * Milliseconds of a `--retention` value, or the reason it is refused: a duration such as `30d`
 * or `72h`, at least the server's minimum (1 hour) and at most 10 years.
 */
export function parseRetention(text: string): { ms: number } | { problem: string } {
  if (!isDuration(text)) return { problem: `'${text}' is not a duration such as 30d or 72h` };
  const ms = parseDuration(text);
  if (ms < MIN_RETENTION_MS) return { problem: `'${text}' is shorter than 1h, the least a Temporal server keeps a closed run` };
  if (ms > MAX_RETENTION_MS) return { problem: `'${text}' is longer than 3650d; write it in days, e.g. 90d` };
  return { ms };
}

export interface NamespaceState {
  /** True when this call registered the namespace. */
  created: boolean;
  /** How long the history of a closed run stays readable, now. */
  retentionMs: number;
  /** The retention before this call changed it (only with `updateRetention`). */
  previousRetentionMs?: number;
}

type WorkflowService = temporal.api.workflowservice.v1.WorkflowService;

/**
 * Makes sure `namespace` exists: registers it with `retentionMs` when missing; an existing one
 * keeps its retention unless `updateRetention` is set. Runs of a namespace disappear from
 * `history` (and the Web UI) once closed for longer than its retention.
 */
export async function ensureNamespace(
  connection: { workflowService: WorkflowService },
  namespace: string,
  options: { retentionMs: number; updateRetention?: boolean },
): Promise<NamespaceState> {
  const service = connection.workflowService;
  let created = false;
  let current = await describeRetention(service, namespace);
  if (current === null) {
    try {
      await service.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(options.retentionMs) });
      created = true;
    } catch (error) {
      // Another setup registered it first: use theirs, as for any existing namespace.
      if (grpcCode(error) !== ALREADY_EXISTS) throw error;
    }
    current = created ? options.retentionMs : await describeRetention(service, namespace);
    if (current === null) throw new Error(`Namespace ${namespace} was registered but cannot be described`);
  }
  if (!created && options.updateRetention && current !== options.retentionMs) {
    await service.updateNamespace({ namespace, config: { workflowExecutionRetentionTtl: msToTs(options.retentionMs) } });
    return { created, retentionMs: options.retentionMs, previousRetentionMs: current };
  }
  return { created, retentionMs: current };
}

/** A line for people: what setup did to the namespace. */
export function describeNamespaceState(namespace: string, state: NamespaceState, requestedMs: number): string {
  if (state.created) return `Created namespace ${namespace} with retention ${formatDuration(state.retentionMs)}.`;
  if (state.previousRetentionMs !== undefined) {
    return `Namespace ${namespace}: retention changed from ${formatDuration(state.previousRetentionMs)} to ${formatDuration(state.retentionMs)}.`;
  }
  const kept = `Namespace ${namespace} exists with retention ${formatDuration(state.retentionMs)}`;
  return state.retentionMs === requestedMs ? `${kept}.` : `${kept} (kept; --update-retention sets ${formatDuration(requestedMs)}).`;
}

/** The namespace's retention in ms, or null when there is no such namespace. */
async function describeRetention(service: WorkflowService, namespace: string): Promise<number | null> {
  try {
    const described = await service.describeNamespace({ namespace });
    return tsToMs(described.config?.workflowExecutionRetentionTtl);
  } catch (error) {
    if (grpcCode(error) === NOT_FOUND) return null;
    throw error;
  }
}

export function grpcCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}
