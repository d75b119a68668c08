// How to tell that a recorded history went through the code of each patch (the patch register test's predicates).
import type { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.History;

/**
 * How to tell that an execution went through a patch's code (so a history without its marker is
 * really the old branch, not a run that never reached it). A new patch needs its entry here, keyed
 * by its constant from src/workflows/versioning/patch-ids.ts; for example, for a patch of thread turns:
 *
 * ```ts
 * [register.SOME_CHANGE_PATCH]: (history) => history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name === WireName.agentThreadWorkflow,
 * ```
 *
 * Empty at the 0.2.0 replay baseline: the register has no patch.
 */
export const PASSES_PATCHED_CODE: Record<string, (history: History) => boolean> = {};
